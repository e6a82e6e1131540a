/**
 * The Binance-shaped order reads and cancels, black-box (docs/exchange-api.md#binance-orders):
 * `order` GET and DELETE, `openOrders`, `allOrders` and `myTrades` with their pages and codes, one
 * key never reaching another account's orders, the native fee rates they use
 * (docs/exchange-api.md#fees), and random order requests that never get a 500.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exchangeForSuite } from './harness.ts';
import { expectCode, orderClient, signedCall } from './binance-support.ts';
import { NEW_ORDER_PARAMS } from '../../server/binance/order-request.ts';

const t = exchangeForSuite({ BINANCE_WEIGHT_LIMIT: '1000000' });
const { trader, place, call, balanceOf } = orderClient(t);

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
    // ids are the account's integers (docs/orders.md#ids): a UUID is malformed, an integer past the last names nothing
    expect([a.body.orderId, b.body.orderId]).toEqual([1, 2]);
    const legal = "Illegal characters found in parameter 'orderId'; legal range is '^[0-9]{1,20}$'.";
    expectCode(await call(key, 'GET', '/order', { symbol: 'SOLUSDT', orderId: '00000000-0000-4000-8000-000000000000' }), 400, -1100, legal);
    expectCode(await call(key, 'DELETE', '/order', { symbol: 'SOLUSDT', orderId: '-1' }), 400, -1100, legal);
    expectCode(await call(key, 'GET', '/order', { symbol: 'SOLUSDT', orderId: '3' }), 400, -2013, 'Order does not exist.');
    expectCode(await call(key, 'GET', '/order', { symbol: 'SOLUSDT', orderId: '99999999999999999999' }), 400, -2013);
    expectCode(await call(key, 'DELETE', '/order', { symbol: 'SOLUSDT', orderId: '0' }), 400, -2011, 'Unknown order sent.');
    expect((await call(key, 'GET', '/order', { symbol: 'SOLUSDT', orderId: '01' })).body).toMatchObject({ orderId: 1, clientOrderId: 'a' });

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
    const ids: number[] = [];
    for (const qty of ['0.1', '0.2', '0.3']) {
      ids.push((await place(key, { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: qty })).body.orderId);
      // an order on another symbol between them takes the next id of the account
      if (qty === '0.1') await place(key, { symbol: 'SOLUSDT', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '1', price: '100' });
    }
    expect(ids).toEqual([1, 3, 4]);
    const all = (q: Record<string, string>) => call(key, 'GET', '/allOrders', { symbol: 'BTCUSDT', ...q });
    expect((await all({})).body.map((o: any) => o.orderId)).toEqual(ids);
    expect((await all({ limit: '2' })).body.map((o: any) => o.orderId)).toEqual(ids.slice(1));
    expect((await all({ orderId: '3', limit: '1' })).body.map((o: any) => o.orderId)).toEqual([3]);
    // from an id on: the orders with that id or above, as Binance (2 is the SOLUSDT order)
    expect((await all({ orderId: '2' })).body.map((o: any) => o.orderId)).toEqual([3, 4]);
    expect((await all({ orderId: '5' })).body).toEqual([]);
    expectCode(await all({ orderId: '0b7f6a1c-1111-4000-8000-000000000000' }), 400, -1100);
    expect((await all({ startTime: String(Date.now() + 60_000) })).body).toEqual([]);
    expectCode(await all({ startTime: '1', endTime: String(2 * 86_400_000) }), 400, -1127, 'More than 24 hours between startTime and endTime.');
    expectCode(await all({ limit: '1001' }), 400, -1130);
    expectCode(await call(key, 'GET', '/allOrders', {}), 400, -1102);
    const trades = (q: Record<string, string>) => call(key, 'GET', '/myTrades', { symbol: 'BTCUSDT', ...q });
    const every = (await trades({})).body;
    expect(every.map((x: any) => [x.id, x.orderId])).toEqual([
      [1, 1],
      [2, 3],
      [3, 4],
    ]);
    expect(every.every((x: any) => x.isMaker === false && x.isBuyer === true)).toBe(true);
    const one = await trades({ orderId: '4' });
    expect(one.body.map((x: any) => x.qty)).toEqual(['0.30000000']);
    expect((await trades({ fromId: '2' })).body.map((x: any) => x.id)).toEqual([2, 3]);
    expect((await trades({ fromId: '2', limit: '1' })).body.map((x: any) => x.id)).toEqual([2]);
    expect((await trades({ fromId: '4' })).body).toEqual([]);
    expectCode(await trades({ fromId: '2', startTime: '1' }), 400, -1128);
    expectCode(await trades({ fromId: 'abc' }), 400, -1100, "Illegal characters found in parameter 'fromId'; legal range is '^[0-9]{1,20}$'.");
    expectCode(await trades({ orderId: '1.5' }), 400, -1100, "Illegal characters found in parameter 'orderId'; legal range is '^[0-9]{1,20}$'.");
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
    const NEW = [...NEW_ORDER_PARAMS];
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
      orderId: fc.oneof(fc.constantFrom('00000000-0000-4000-8000-000000000000', '1', '0', '007', '99999999999999999999', ''), fc.string({ maxLength: 70 })),
      origClientOrderId: fc.oneof(fc.constantFrom('fuzz-1', ''), fc.string({ maxLength: 110 })),
      fromId: fc.oneof(fc.constantFrom('1', '0', '99999999999999999999'), fc.string({ maxLength: 70 })),
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
