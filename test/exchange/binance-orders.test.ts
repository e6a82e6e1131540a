/**
 * The Binance-shaped order routes, black-box (docs/exchange-api.md#binance-orders): placing
 * (LIMIT GTC / IOC / FOK, LIMIT_MAKER, MARKET by quantity and by quote amount) with the ACK,
 * RESULT and FULL answers, a resting order filled when the book moves, locked balances, order
 * counts, filters and Binance's codes, and `order/test`. Every answer is checked against the
 * OpenAPI document.
 */
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { exchangeForSuite } from './harness.ts';
import { expectCode, orderClient } from './binance-support.ts';
import { book, publishAndWait } from './support.ts';

const t = exchangeForSuite({ BINANCE_WEIGHT_LIMIT: '1000000' });
const { trader, place, call, balanceOf } = orderClient(t);

describe('POST /api/v3/order', () => {
  it('rests a LIMIT GTC order with its cash locked, and fills it at its price when the book reaches it', async () => {
    await t.freshBooks();
    const { key } = await trader('rests');
    const r = await place(key, {
      symbol: 'SOLUSDT',
      side: 'BUY',
      type: 'LIMIT',
      timeInForce: 'GTC',
      quantity: '2',
      price: '149',
      newClientOrderId: 'my-first',
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-mbx-order-count-10s')).toBe('1');
    expect(r.headers.get('x-mbx-order-count-1d')).toBe('1');
    expect(r.body).toEqual({
      symbol: 'SOLUSDT',
      // the account's first order: integer ids, a JSON number (docs/orders.md#ids)
      orderId: 1,
      orderListId: -1,
      clientOrderId: 'my-first',
      transactTime: expect.any(Number),
      price: '149.00000000',
      origQty: '2.00000000',
      executedQty: '0.00000000',
      origQuoteOrderQty: '0.00000000',
      cummulativeQuoteQty: '0.00000000',
      status: 'NEW',
      timeInForce: 'GTC',
      type: 'LIMIT',
      side: 'BUY',
      workingTime: r.body.transactTime,
      selfTradePreventionMode: 'EXPIRE_MAKER',
      fills: [],
    });
    // 2 x 149 + the 0.1 % maker fee
    expect(await balanceOf(key, 'USDT')).toEqual({ free: '9701.70200000', locked: '298.29800000' });
    const open = await call(key, 'GET', '/openOrders', { symbol: 'SOLUSDT' });
    expect(open.body.map((o: any) => [o.orderId, o.status])).toEqual([[r.body.orderId, 'NEW']]);
    expect(open.weight).toBeGreaterThanOrEqual(6);

    await publishAndWait(t.nc, t.api, book('SOLUSDT', [['148.50', '100']], [['148.90', '100']]));
    const filled = await eventually(
      'the resting order filled',
      async () => {
        const o = await call(key, 'GET', '/order', { symbol: 'SOLUSDT', orderId: r.body.orderId });
        return o.body.status === 'FILLED' ? o : null;
      },
      10_000,
      50,
    );
    expect(filled.body).toMatchObject({ executedQty: '2.00000000', cummulativeQuoteQty: '298.00000000', price: '149.00000000', isWorking: true });
    expect(filled.weight).toBeGreaterThanOrEqual(4);
    const trades = await call(key, 'GET', '/myTrades', { symbol: 'SOLUSDT' });
    expect(trades.body).toEqual([
      {
        symbol: 'SOLUSDT',
        id: 1,
        orderId: 1,
        orderListId: -1,
        price: '149.00000000',
        qty: '2.00000000',
        quoteQty: '298.00000000',
        commission: '0.29800000',
        commissionAsset: 'USDT',
        time: expect.any(Number),
        isBuyer: true,
        isMaker: true,
        isBestMatch: true,
      },
    ]);
    expect(await balanceOf(key, 'USDT')).toEqual({ free: '9701.70200000', locked: '0.00000000' });
    expect(await balanceOf(key, 'SOL')).toEqual({ free: '2.00000000', locked: '0.00000000' });
    expect((await call(key, 'GET', '/openOrders', {})).body).toEqual([]);
    await t.freshBooks();
  });

  it('answers MARKET orders FULL by default, RESULT and ACK when asked, LIMIT_MAKER ACK by default', async () => {
    await t.freshBooks();
    const { key } = await trader('market');
    const full = await place(key, { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '1.5' });
    expect(full.body).toMatchObject({
      status: 'FILLED',
      executedQty: '1.50000000',
      cummulativeQuoteQty: '150.50000000',
      timeInForce: 'GTC',
      price: '0.00000000',
    });
    expect(full.body.fills).toEqual([
      { price: '100.00000000', qty: '1.00000000', commission: '0.10000000', commissionAsset: 'USDT', tradeId: 1 },
      { price: '101.00000000', qty: '0.50000000', commission: '0.05050000', commissionAsset: 'USDT', tradeId: 2 },
    ]);
    const result = await place(key, { symbol: 'BTCUSDT', side: 'SELL', type: 'MARKET', quantity: '0.5', newOrderRespType: 'RESULT' });
    expect(result.body).toMatchObject({ status: 'FILLED', executedQty: '0.50000000', cummulativeQuoteQty: '49.50000000' });
    expect(result.body.fills).toBeUndefined();
    const byQuote = await place(key, { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quoteOrderQty: '50', newOrderRespType: 'ACK' });
    expect(Object.keys(byQuote.body).sort()).toEqual(['clientOrderId', 'orderId', 'orderListId', 'symbol', 'transactTime']);
    expect(byQuote.body.clientOrderId).toMatch(/^[A-Za-z0-9]{22}$/);
    const quoted = await call(key, 'GET', '/order', { symbol: 'BTCUSDT', origClientOrderId: byQuote.body.clientOrderId });
    expect(quoted.body).toMatchObject({ orderId: byQuote.body.orderId, origQuoteOrderQty: '50.00000000', status: 'FILLED' });
    const maker = await place(key, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT_MAKER', quantity: '0.1', price: '90' });
    expect(Object.keys(maker.body).sort()).toEqual(['clientOrderId', 'orderId', 'orderListId', 'symbol', 'transactTime']);
    // every answer names the account's orders 1, 2, 3, ... in placing order
    expect([full.body.orderId, result.body.orderId, byQuote.body.orderId, maker.body.orderId]).toEqual([1, 2, 3, 4]);
    await t.freshBooks();
  });

  it('takes what it can of a LIMIT IOC and expires the rest; a FOK the book cannot fill expires whole', async () => {
    await t.freshBooks();
    const { key } = await trader('ioc');
    const ioc = await place(key, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', timeInForce: 'IOC', quantity: '2', price: '100' });
    expect(ioc.body).toMatchObject({ status: 'EXPIRED', timeInForce: 'IOC', executedQty: '1.00000000', origQty: '2.00000000' });
    expect(ioc.body.fills).toHaveLength(1);
    await t.freshBooks();
    const fok = await place(key, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', timeInForce: 'FOK', quantity: '4', price: '101' });
    expect(fok.status).toBe(200);
    expect(fok.body).toMatchObject({ status: 'EXPIRED', timeInForce: 'FOK', executedQty: '0.00000000', fills: [] });
    const whole = await place(key, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', timeInForce: 'FOK', quantity: '3', price: '101' });
    expect(whole.body).toMatchObject({ status: 'FILLED', executedQty: '3.00000000' });
    expect(await balanceOf(key, 'USDT')).toMatchObject({ locked: '0.00000000' });
    await t.freshBooks();
  });

  it("refuses with Binance's codes and messages", async () => {
    await t.freshBooks();
    const { key } = await trader('refused', '200');
    const limit = { symbol: 'SOLUSDT', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '1', price: '140' };
    const without = (name: string) => Object.fromEntries(Object.entries(limit).filter(([k]) => k !== name));
    for (const name of ['side', 'type', 'quantity', 'price', 'timeInForce']) {
      expectCode(await place(key, without(name)), 400, -1102, `Mandatory parameter '${name}' was not sent, was empty/null, or malformed.`);
    }
    expectCode(await place(key, without('symbol')), 400, -1102);
    expectCode(await place(key, { ...limit, symbol: 'DOGEUSDT' }), 400, -1121, 'Invalid symbol.');
    expectCode(await place(key, { ...limit, side: 'HOLD' }), 400, -1117, 'Invalid side.');
    expectCode(await place(key, { ...limit, type: 'ICEBERG' }), 400, -1116, 'Invalid orderType.');
    expectCode(await place(key, { ...limit, type: 'STOP_LOSS' }), 400, -2010, 'Stop loss orders are not supported for this symbol.');
    expectCode(await place(key, { ...limit, timeInForce: 'GTX' }), 400, -1115, 'Invalid timeInForce.');
    expectCode(await place(key, { ...limit, quantity: '1e3' }), 400, -1100);
    expectCode(await place(key, { ...limit, newOrderRespType: 'ALL' }), 400, -1130);
    expectCode(await place(key, { ...limit, newClientOrderId: '' }), 400, -1118, 'New client order ID was empty.');
    expectCode(await place(key, { ...limit, newClientOrderId: 'x'.repeat(37) }), 400, -1100);
    expectCode(await place(key, { ...limit, quoteOrderQty: '10' }), 400, -1106, "Parameter 'quoteOrderQty' sent when not required.");
    expectCode(await place(key, { symbol: 'SOLUSDT', side: 'BUY', type: 'MARKET', quantity: '1', timeInForce: 'GTC' }), 400, -1106);
    expectCode(
      await place(key, { symbol: 'SOLUSDT', side: 'BUY', type: 'MARKET', quantity: '1', price: '150' }),
      400,
      -1106,
      "Parameter 'price' sent when not required.",
    );
    expectCode(
      await place(key, { symbol: 'SOLUSDT', side: 'BUY', type: 'MARKET' }),
      400,
      -1102,
      "Param 'quantity' or 'quoteOrderQty' must be sent, but both were empty/null!",
    );
    expectCode(await place(key, { ...limit, price: '140.005' }), 400, -1013, 'Filter failure: PRICE_FILTER');
    expectCode(await place(key, { ...limit, quantity: '0.0005' }), 400, -1013, 'Filter failure: LOT_SIZE');
    expectCode(await place(key, { ...limit, quantity: '0' }), 400, -1013, 'Filter failure: LOT_SIZE');
    expectCode(await place(key, { ...limit, quantity: '0.01' }), 400, -1013, 'Filter failure: NOTIONAL');
    expectCode(await place(key, { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '200' }), 400, -1013, 'Filter failure: MARKET_LOT_SIZE');
    expectCode(await place(key, { ...limit, quantity: '2' }), 400, -2010, 'Account has insufficient balance for requested action.');
    expectCode(await place(key, { ...limit, side: 'SELL' }), 400, -2010, 'Account has insufficient balance for requested action.');
    expectCode(await place(key, { ...limit, type: 'LIMIT_MAKER', timeInForce: '', price: '150' }), 400, -1106);
    expectCode(
      await place(key, { symbol: 'SOLUSDT', side: 'BUY', type: 'LIMIT_MAKER', quantity: '1', price: '150' }),
      400,
      -2010,
      'Order would immediately match and take.',
    );
    // the book's whole ask side taken, nothing is left for a MARKET order until a newer book
    const rich = await trader('liquidity', '100000');
    expect((await place(rich.key, { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '8' })).body.status).toBe('FILLED');
    expectCode(
      await place(rich.key, { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '1' }),
      400,
      -2010,
      'Order book liquidity is less than LOT_SIZE filter minimum quantity.',
    );
    await t.freshBooks();
    expect((await place(key, { ...limit, newClientOrderId: 'once' })).status).toBe(200);
    expectCode(await place(key, { ...limit, newClientOrderId: 'once' }), 400, -2010, 'Duplicate order sent.');
    // nothing refused left an order behind
    expect((await call(key, 'GET', '/allOrders', { symbol: 'SOLUSDT' })).body.map((o: any) => o.clientOrderId)).toEqual(['once']);
  });

  it('counts new orders per account and refuses past 100 in 10 seconds (-1015)', async () => {
    const { key } = await trader('counted');
    let last: Awaited<ReturnType<typeof place>> | undefined;
    for (let i = 0; i < 250 && last?.status !== 429; i++)
      last = await place(key, { symbol: 'SOLUSDT', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0001', price: '1' });
    expectCode(last!, 429, -1015, 'Too many new orders; current limit is 100 orders per 10 SECOND.');
    expect(last!.headers.get('x-mbx-order-count-10s')).toBe('101');
    expect(Number(last!.headers.get('x-mbx-order-count-1d'))).toBeGreaterThanOrEqual(101);
  });
});

describe('POST /api/v3/order/test', () => {
  it('checks an order as the real route does and places nothing', async () => {
    const { key } = await trader('tester');
    const order = { symbol: 'SOLUSDT', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '1', price: '140' };
    const r = await call(key, 'POST', '/order/test', order);
    expect(r).toMatchObject({ status: 200, body: {} });
    expect(r.headers.get('x-mbx-order-count-10s')).toBeNull();
    const rates = await call(key, 'POST', '/order/test', { ...order, computeCommissionRates: 'true' });
    expect(rates.body).toMatchObject({ standardCommissionForOrder: { maker: '0.00100000', taker: '0.00100000' } });
    expect(rates.weight - r.weight).toBeGreaterThanOrEqual(20);
    expectCode(await call(key, 'POST', '/order/test', { ...order, price: '140.001' }), 400, -1013, 'Filter failure: PRICE_FILTER');
    expectCode(await call(key, 'POST', '/order/test', { ...order, timeInForce: 'NOW' }), 400, -1115);
    expect((await call(key, 'GET', '/allOrders', { symbol: 'SOLUSDT' })).body).toEqual([]);
    expect(await balanceOf(key, 'USDT')).toEqual({ free: '10000.00000000', locked: '0.00000000' });
  });
});
