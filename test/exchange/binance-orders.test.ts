/**
 * The Binance-shaped order routes, black-box (docs/exchange-api.md#binance-orders): placing
 * (LIMIT GTC / IOC / FOK, LIMIT_MAKER, MARKET by quantity and by quote amount) with the ACK,
 * RESULT and FULL answers, a resting order filled when the book moves, reads, cancels, locked
 * balances, order counts, filters and Binance's codes, and one key never reaching another
 * account's orders. Every answer is checked against the OpenAPI document.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { exchangeForSuite } from './harness.ts';
import { hmacKeyFor, signedCall, type Signing } from './binance-support.ts';
import { book, publishAndWait } from './support.ts';

const t = exchangeForSuite({ BINANCE_WEIGHT_LIMIT: '1000000' });
const expectCode = (r: { status: number; body: any }, status: number, code: number, msg?: string) => {
  expect({ status: r.status, code: r.body?.code, ...(msg === undefined ? {} : { msg: r.body?.msg }) }).toEqual({
    status,
    code,
    ...(msg === undefined ? {} : { msg }),
  });
};
/** An account with `cash` and an HMAC key. */
async function trader(name: string, cash = '10000'): Promise<{ id: string; key: Signing }> {
  const id = await t.openAccount(name, cash);
  return { id, key: await hmacKeyFor(t.api, id) };
}
const place = (key: Signing, order: Record<string, string>) => signedCall(t.baseUrl, 'POST', '/api/v3/order', key, {}, order);
const call = (key: Signing, method: string, path: string, params: Record<string, string>) =>
  method === 'GET' ? signedCall(t.baseUrl, method, `/api/v3${path}`, key, params) : signedCall(t.baseUrl, method, `/api/v3${path}`, key, {}, params);
const balanceOf = async (key: Signing, asset: string): Promise<{ free: string; locked: string }> => {
  const b = (await signedCall(t.baseUrl, 'GET', '/api/v3/account', key)).body.balances.find((x: any) => x.asset === asset);
  return { free: b.free, locked: b.locked };
};

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
      orderId: expect.any(String),
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
        id: expect.any(String),
        orderId: r.body.orderId,
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
      { price: '100.00000000', qty: '1.00000000', commission: '0.10000000', commissionAsset: 'USDT', tradeId: expect.any(String) },
      { price: '101.00000000', qty: '0.50000000', commission: '0.05050000', commissionAsset: 'USDT', tradeId: expect.any(String) },
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

describe('reading and canceling orders', () => {
  it('reads and cancels by orderId or origClientOrderId, answers -2013 and -2011 for what is not there', async () => {
    const { key } = await trader('canceler');
    const a = await place(key, { symbol: 'SOLUSDT', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '1', price: '140', newClientOrderId: 'a' });
    const b = await place(key, { symbol: 'SOLUSDT', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '1', price: '141', newClientOrderId: 'b' });
    expect((await call(key, 'GET', '/order', { symbol: 'SOLUSDT', origClientOrderId: 'b' })).body).toMatchObject({
      orderId: b.body.orderId,
      clientOrderId: 'b',
      status: 'NEW',
      stopPrice: '0.00000000',
      icebergQty: '0.00000000',
      time: b.body.transactTime,
      updateTime: expect.any(Number),
    });
    expectCode(await call(key, 'GET', '/order', { symbol: 'SOLUSDT', orderId: a.body.orderId, origClientOrderId: 'b' }), 400, -2013, 'Order does not exist.');
    expectCode(await call(key, 'GET', '/order', { symbol: 'BTCUSDT', orderId: a.body.orderId }), 400, -2013);
    expectCode(
      await call(key, 'GET', '/order', { symbol: 'SOLUSDT' }),
      400,
      -1102,
      "Param 'origClientOrderId' or 'orderId' must be sent, but both were empty/null!",
    );
    expectCode(await call(key, 'GET', '/order', { symbol: 'SOLUSDT', orderId: 'no such' }), 400, -1100);

    const canceled = await call(key, 'DELETE', '/order', { symbol: 'SOLUSDT', orderId: a.body.orderId, newClientOrderId: 'undo-a' });
    expect(canceled.body).toEqual({
      symbol: 'SOLUSDT',
      origClientOrderId: 'a',
      orderId: a.body.orderId,
      orderListId: -1,
      clientOrderId: 'undo-a',
      transactTime: expect.any(Number),
      price: '140.00000000',
      origQty: '1.00000000',
      executedQty: '0.00000000',
      origQuoteOrderQty: '0.00000000',
      cummulativeQuoteQty: '0.00000000',
      status: 'CANCELED',
      timeInForce: 'GTC',
      type: 'LIMIT',
      side: 'BUY',
      selfTradePreventionMode: 'EXPIRE_MAKER',
    });
    expectCode(await call(key, 'DELETE', '/order', { symbol: 'SOLUSDT', orderId: a.body.orderId }), 400, -2011, 'Unknown order sent.');
    expectCode(await call(key, 'DELETE', '/order', { symbol: 'SOLUSDT', origClientOrderId: 'nobody' }), 400, -2011, 'Unknown order sent.');
    expect((await call(key, 'GET', '/order', { symbol: 'SOLUSDT', origClientOrderId: 'a' })).body.status).toBe('CANCELED');
    expect(await balanceOf(key, 'USDT')).toEqual({ free: '9858.85900000', locked: '141.14100000' });

    const c = await place(key, { symbol: 'SOLUSDT', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '1', price: '139' });
    const all = await call(key, 'DELETE', '/openOrders', { symbol: 'SOLUSDT' });
    expect(all.body.map((o: any) => [o.orderId, o.status])).toEqual([
      [b.body.orderId, 'CANCELED'],
      [c.body.orderId, 'CANCELED'],
    ]);
    expectCode(await call(key, 'DELETE', '/openOrders', { symbol: 'SOLUSDT' }), 400, -2011);
    expectCode(await call(key, 'DELETE', '/openOrders', {}), 400, -1102);
    expect(await balanceOf(key, 'USDT')).toEqual({ free: '10000.00000000', locked: '0.00000000' });
  });

  it('pages allOrders and myTrades as Binance does', async () => {
    await t.freshBooks();
    const { key } = await trader('pager');
    const ids: string[] = [];
    for (const qty of ['0.1', '0.2', '0.3']) ids.push((await place(key, { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: qty })).body.orderId);
    const all = (q: Record<string, string>) => call(key, 'GET', '/allOrders', { symbol: 'BTCUSDT', ...q });
    expect((await all({})).body.map((o: any) => o.orderId)).toEqual(ids);
    expect((await all({ limit: '2' })).body.map((o: any) => o.orderId)).toEqual(ids.slice(1));
    expect((await all({ orderId: ids[1]!, limit: '1' })).body.map((o: any) => o.orderId)).toEqual([ids[1]]);
    expect((await all({ startTime: String(Date.now() + 60_000) })).body).toEqual([]);
    expectCode(await all({ startTime: '1', endTime: String(2 * 86_400_000) }), 400, -1127, 'More than 24 hours between startTime and endTime.');
    expectCode(await all({ limit: '1001' }), 400, -1130);
    expectCode(await call(key, 'GET', '/allOrders', {}), 400, -1102);
    const trades = (q: Record<string, string>) => call(key, 'GET', '/myTrades', { symbol: 'BTCUSDT', ...q });
    const every = (await trades({})).body;
    expect(every.map((x: any) => x.orderId)).toEqual(ids);
    expect(every.every((x: any) => x.isMaker === false && x.isBuyer === true)).toBe(true);
    const one = await trades({ orderId: ids[2]! });
    expect(one.body.map((x: any) => x.qty)).toEqual(['0.30000000']);
    expect((await trades({ fromId: every[1].id })).body.map((x: any) => x.id)).toEqual([every[1].id, every[2].id]);
    expectCode(await trades({ fromId: every[1].id, startTime: '1' }), 400, -1128);
    await t.freshBooks();
  });

  it('lets a key reach only its own account', async () => {
    const alice = await trader('alice');
    const bob = await trader('bob');
    const order = await place(alice.key, {
      symbol: 'SOLUSDT',
      side: 'BUY',
      type: 'LIMIT',
      timeInForce: 'GTC',
      quantity: '1',
      price: '140',
      newClientOrderId: 'alices',
    });
    const ref = { symbol: 'SOLUSDT', orderId: order.body.orderId };
    expectCode(await call(bob.key, 'GET', '/order', ref), 400, -2013);
    expectCode(await call(bob.key, 'GET', '/order', { symbol: 'SOLUSDT', origClientOrderId: 'alices' }), 400, -2013);
    expectCode(await call(bob.key, 'DELETE', '/order', ref), 400, -2011);
    expectCode(await call(bob.key, 'DELETE', '/openOrders', { symbol: 'SOLUSDT' }), 400, -2011);
    expect((await call(bob.key, 'GET', '/openOrders', {})).body).toEqual([]);
    expect((await call(bob.key, 'GET', '/allOrders', { symbol: 'SOLUSDT' })).body).toEqual([]);
    // the same client id is free for another account
    expect(
      (await place(bob.key, { symbol: 'SOLUSDT', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '1', price: '140', newClientOrderId: 'alices' }))
        .status,
    ).toBe(200);
    expect((await call(alice.key, 'GET', '/order', ref)).body.status).toBe('NEW');
    expect((await call(alice.key, 'GET', '/openOrders', { symbol: 'SOLUSDT' })).body).toHaveLength(1);
  });
});

describe('fee rates (native extension)', () => {
  it('sets the taker and maker rates that account and the fills use', async () => {
    await t.freshBooks();
    const { id, key } = await trader('fees');
    expect((await t.api.get(`/api/v1/accounts/${id}/fees`)).body).toEqual({ accountId: id, feeRate: '0.0010000000', makerFeeRate: '0.0010000000' });
    const set = await t.api.put(`/api/v1/accounts/${id}/fees`, { feeRate: '0.002', makerFeeRate: '0.0002' });
    expect(set).toMatchObject({ status: 200, body: { accountId: id, feeRate: '0.0020000000', makerFeeRate: '0.0002000000' } });
    const account = (await signedCall(t.baseUrl, 'GET', '/api/v3/account', key)).body;
    expect(account).toMatchObject({ makerCommission: 2, takerCommission: 20, commissionRates: { maker: '0.00020000', taker: '0.00200000' } });
    const taker = await place(key, { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '1' });
    expect(taker.body.fills[0]).toMatchObject({ price: '100.00000000', commission: '0.20000000' });
    // the lock of a resting BUY is its price and its maker fee
    await place(key, { symbol: 'SOLUSDT', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '1', price: '140' });
    expect((await balanceOf(key, 'USDT')).locked).toBe('140.02800000');
    expect((await t.api.put(`/api/v1/accounts/${id}/fees`, { makerFeeRate: '0' })).body).toMatchObject({
      feeRate: '0.0020000000',
      makerFeeRate: '0.0000000000',
    });
    for (const bad of [{}, { feeRate: '1' }, { feeRate: '-0.1' }, { feeRate: 0.001 }, { takerFeeRate: '0.001' }]) {
      expect((await t.api.put(`/api/v1/accounts/${id}/fees`, bad)).body.error).toBe('VALIDATION_ERROR');
    }
    expect((await t.api.put('/api/v1/accounts/00000000-0000-4000-8000-000000000000/fees', { feeRate: '0' })).status).toBe(404);
    await t.freshBooks();
  });
});

describe('random order requests', () => {
  it('never get a 500: every answer is 200 or a Binance error with a 4xx status', async () => {
    await t.freshBooks();
    const { key } = await trader('fuzzer', '1000');
    const NEW = [
      'symbol',
      'side',
      'type',
      'timeInForce',
      'quantity',
      'quoteOrderQty',
      'price',
      'newClientOrderId',
      'newOrderRespType',
      'selfTradePreventionMode',
    ];
    const REF = ['symbol', 'orderId', 'origClientOrderId'];
    const PAGE = ['symbol', 'startTime', 'endTime', 'limit'];
    const routes: [string, string, string[]][] = [
      ['POST', '/order', NEW],
      ['POST', '/order/test', [...NEW, 'computeCommissionRates']],
      ['GET', '/order', REF],
      ['DELETE', '/order', [...REF, 'newClientOrderId']],
      ['GET', '/openOrders', ['symbol']],
      ['DELETE', '/openOrders', ['symbol']],
      ['GET', '/allOrders', [...PAGE, 'orderId']],
      ['GET', '/myTrades', [...PAGE, 'orderId', 'fromId']],
    ];
    const number = fc.oneof(
      fc.constantFrom('1', '0', '0.001', '149.5', '100.00000000', '-1', '1e3', '', '99999999999999999999.99999999999999999999', '0.00000000001', '.5', 'NaN'),
      fc.double({ min: 0, max: 1e7, noNaN: true }).map(String),
      fc.string({ maxLength: 12 }),
    );
    const values: Record<string, fc.Arbitrary<string>> = {
      symbol: fc.constantFrom('BTCUSDT', 'SOLUSDT', 'ETHUSDT', 'solusdt', 'DOGEUSDT', '', 'BTC USDT'),
      side: fc.constantFrom('BUY', 'SELL', 'buy', '', 'HOLD'),
      type: fc.constantFrom('LIMIT', 'MARKET', 'LIMIT_MAKER', 'STOP_LOSS_LIMIT', 'limit', ''),
      timeInForce: fc.constantFrom('GTC', 'IOC', 'FOK', 'GTX', ''),
      quantity: number,
      quoteOrderQty: number,
      price: number,
      newClientOrderId: fc.oneof(fc.constantFrom('fuzz-1', 'fuzz-2', ''), fc.string({ maxLength: 40 })),
      newOrderRespType: fc.constantFrom('ACK', 'RESULT', 'FULL', 'NONE'),
      selfTradePreventionMode: fc.constantFrom('NONE', 'EXPIRE_TAKER', 'BAD'),
      orderId: fc.oneof(fc.constantFrom('00000000-0000-4000-8000-000000000000', '1', ''), fc.string({ maxLength: 70 })),
      origClientOrderId: fc.oneof(fc.constantFrom('fuzz-1', ''), fc.string({ maxLength: 110 })),
      fromId: fc.string({ maxLength: 70 }),
      startTime: fc.oneof(number, fc.integer({ min: 0, max: 2 ** 53 }).map(String)),
      endTime: fc.oneof(number, fc.integer({ min: 0, max: 2 ** 53 }).map(String)),
      limit: fc.oneof(number, fc.constantFrom('1', '1000', '1001', '0')),
      computeCommissionRates: fc.constantFrom('true', 'false', 'yes'),
      recvWindow: fc.constantFrom('5000', '60001', 'x'),
      junk: fc.string({ maxLength: 8 }),
    };
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes).chain(([method, path, names]) => {
          const own = Object.fromEntries(names.map((n) => [n, values[n]!]));
          // mostly the route's own parameters with the mandatory ones, sometimes any of them, rarely a stranger
          const params = fc.oneof(
            { weight: 3, arbitrary: fc.record(own, { requiredKeys: names.filter((n) => ['symbol', 'side', 'type'].includes(n)) }) },
            { weight: 1, arbitrary: fc.record(own, { requiredKeys: [] }) },
            { weight: 1, arbitrary: fc.record({ ...own, recvWindow: values.recvWindow!, junk: values.junk! }, { requiredKeys: [] }) },
          );
          return fc.tuple(fc.constant([method, path] as const), params);
        }),
        async ([[method, path], params]) => {
          const r = await call(key, method, path, params as Record<string, string>);
          expect(
            r.status === 200 || (r.status >= 400 && r.status < 500),
            `${method} ${path} ${JSON.stringify(params)} -> ${r.status} ${JSON.stringify(r.body)}`,
          ).toBe(true);
          if (r.status !== 200) expect(Object.keys(r.body).sort()).toEqual(['code', 'msg']);
          seen.add(`${r.status} ${r.body?.code ?? ''}`);
        },
      ),
      { numRuns: 300 },
    );
    // the runs reached the engine, not only the parameter checks
    expect(seen).toContain('200 ');
    expect([...seen].filter((x) => x.startsWith('400 -2')).length).toBeGreaterThanOrEqual(2);
  });
});
