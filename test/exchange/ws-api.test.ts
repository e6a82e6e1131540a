/**
 * Binance's WebSocket API on a running exchange (docs/exchange-api.md#binance-user-data-stream):
 * `userDataStream.subscribe.signature` with HMAC-SHA256 and Ed25519 keys, Binance's errors for a
 * bad signature, a stale timestamp and an unknown key, several subscriptions on one connection,
 * unsubscribe, a deleted key, isolation between accounts, and the `executionReport` /
 * `outboundAccountPosition` / `balanceUpdate` events of a limit order that rests and then fills
 * when the book moves; a market order placed through the native API moves balances only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryExchangeStore } from '../../adapters/store/exchange/memory.ts';
import { collect, type Collector } from '../support/ws-collector.ts';
import { ed25519KeyFor, hmacKeyFor, signedCall } from './binance-support.ts';
import { startInProcess, subscribeParams, type InProcessExchange } from './in-process.ts';

let t: InProcessExchange;
const sockets: Collector[] = [];
let nextId = 1;

beforeAll(async () => {
  t = await startInProcess(createMemoryExchangeStore());
  t.feed.push({ symbol: 'SOLUSDT', bids: [['149', '10']], asks: [['150', '10']], ts: Date.now() });
});
afterAll(async () => {
  for (const s of sockets) s.close();
  await t?.exchange.stop();
});

const connect = async () => {
  const c = await collect(`${t.wsUrl}/ws-api/v3`);
  sockets.push(c);
  return c;
};

/** Sends one request and resolves with its answer. */
async function call(c: Collector, method: string, params?: unknown): Promise<Record<string, any>> {
  const id = `r${nextId++}`;
  c.socket.send(JSON.stringify({ id, method, ...(params === undefined ? {} : { params }) }));
  await c.until((ms) => ms.some((m) => m.id === id), 5_000);
  return c.messages.find((m) => m.id === id) as Record<string, any>;
}

/** The user data events a connection received, unwrapped, with their subscription. */
const events = (c: Collector) => c.messages.filter((m) => 'event' in m) as { subscriptionId: number; event: Record<string, any> }[];
const ofType = (c: Collector, e: string) => events(c).filter((m) => m.event.e === e);

describe('ws-api requests', () => {
  it('answers ping and time with rate limits, and refuses an unknown method or a malformed request', async () => {
    const c = await connect();
    const ping = await call(c, 'ping');
    expect(ping).toMatchObject({ status: 200, result: {} });
    expect(ping.rateLimits[0]).toMatchObject({ rateLimitType: 'REQUEST_WEIGHT', interval: 'MINUTE', intervalNum: 1, limit: 6000 });
    const time = await call(c, 'time');
    expect(Math.abs(time.result.serverTime - Date.now())).toBeLessThan(5_000);
    expect(await call(c, 'order.place', {})).toMatchObject({ status: 400, error: { code: -1020 } });
    c.socket.send('not json');
    await c.until((ms) => ms.some((m) => m.id === null && m.status === 400));
  });

  it('subscribes with HMAC and Ed25519 keys, several accounts on one connection, and refuses bad signatures, stale times and unknown keys', async () => {
    const [a, b] = [await t.openAccount('wsapi-a'), await t.openAccount('wsapi-b')];
    const hmac = await hmacKeyFor(t.api, a);
    const ed = await ed25519KeyFor(t.api, b);
    const c = await connect();
    expect(await call(c, 'userDataStream.subscribe.signature', subscribeParams(hmac))).toMatchObject({ status: 200, result: { subscriptionId: 0 } });
    expect(await call(c, 'userDataStream.subscribe.signature', subscribeParams(ed, { recvWindow: 10_000 }))).toMatchObject({
      status: 200,
      result: { subscriptionId: 1 },
    });
    // one subscription per account and connection: asking again answers the same one
    expect((await call(c, 'userDataStream.subscribe.signature', subscribeParams(hmac))).result).toEqual({ subscriptionId: 0 });
    expect((await call(c, 'session.subscriptions', {})).result).toEqual([{ subscriptionId: 0 }, { subscriptionId: 1 }]);

    const forged = { ...subscribeParams(hmac), signature: 'ab'.repeat(32) };
    expect(await call(c, 'userDataStream.subscribe.signature', forged)).toMatchObject({ status: 400, error: { code: -1022 } });
    const edForged = { ...subscribeParams(ed), timestamp: Date.now() + 1 };
    expect(await call(c, 'userDataStream.subscribe.signature', edForged)).toMatchObject({ status: 400, error: { code: -1022 } });
    const stale = subscribeParams(hmac, { timestamp: Date.now() - 60_000 });
    expect(await call(c, 'userDataStream.subscribe.signature', stale)).toMatchObject({
      status: 400,
      error: { code: -1021, msg: 'Timestamp for this request is outside of the recvWindow.' },
    });
    const unknown = subscribeParams({ apiKey: 'U'.repeat(64), secretKey: hmac.secretKey });
    expect(await call(c, 'userDataStream.subscribe.signature', unknown)).toMatchObject({ status: 401, error: { code: -2015 } });
    const { signature: _s, ...unsigned } = subscribeParams(hmac);
    expect(await call(c, 'userDataStream.subscribe.signature', unsigned)).toMatchObject({ status: 400, error: { code: -1102 } });
    expect(await call(c, 'userDataStream.subscribe.signature', subscribeParams(hmac, { recvWindow: 70_000 }))).toMatchObject({ error: { code: -1131 } });
    // nothing refused was added
    expect((await call(c, 'session.subscriptions')).result).toHaveLength(2);
    // each account's events come under its own subscription id
    expect((await t.api.post(`/api/v1/accounts/${b}/deposits`, { amount: '3' })).status).toBe(201);
    await c.until(() => ofType(c, 'outboundAccountPosition').length === 1);
    expect(ofType(c, 'balanceUpdate').map((m) => m.subscriptionId)).toEqual([1]);
    expect(ofType(c, 'outboundAccountPosition').map((m) => m.subscriptionId)).toEqual([1]);
    expect((await t.api.post(`/api/v1/accounts/${a}/deposits`, { amount: '4' })).status).toBe(201);
    await c.until(() => ofType(c, 'outboundAccountPosition').length === 2);
    expect(ofType(c, 'balanceUpdate').map((m) => [m.subscriptionId, m.event.d])).toEqual([
      [1, '3.00000000'],
      [0, '4.00000000'],
    ]);
  });
});

describe('user data events', () => {
  it('sends a resting limit order, its fill when the book moves, and the balances, only to its own account', async () => {
    const [a, b] = [await t.openAccount('uds-a', '1000'), await t.openAccount('uds-b', '1000')];
    const [ca, cb] = [await connect(), await connect()];
    expect((await call(ca, 'userDataStream.subscribe.signature', subscribeParams(await hmacKeyFor(t.api, a)))).status).toBe(200);
    expect((await call(cb, 'userDataStream.subscribe.signature', subscribeParams(await ed25519KeyFor(t.api, b)))).status).toBe(200);

    const placed = await t.exchange.engine.place({
      accountId: a,
      symbol: 'SOLUSDT',
      side: 'BUY',
      type: 'LIMIT',
      quantity: '1',
      price: '149',
      clientOrderId: 'rest-1',
    });
    if (!placed.ok) throw new Error(placed.message);
    await ca.until(() => ofType(ca, 'executionReport').length === 1 && ofType(ca, 'outboundAccountPosition').length === 1);
    const created = ofType(ca, 'executionReport')[0]!;
    expect(created.subscriptionId).toBe(0);
    expect(created.event).toMatchObject({
      s: 'SOLUSDT',
      c: 'rest-1',
      S: 'BUY',
      o: 'LIMIT',
      f: 'GTC',
      q: '1.00000000',
      p: '149.00000000',
      x: 'NEW',
      X: 'NEW',
      // the account's first order, as a JSON number (docs/orders.md#ids)
      i: 1,
      z: '0.00000000',
      w: true,
      g: -1,
      t: -1,
      V: 'NONE',
    });
    for (const field of [
      'e',
      'E',
      's',
      'c',
      'S',
      'o',
      'f',
      'q',
      'p',
      'P',
      'F',
      'g',
      'C',
      'x',
      'X',
      'r',
      'i',
      'l',
      'z',
      'L',
      'n',
      'N',
      'T',
      't',
      'I',
      'w',
      'm',
      'M',
      'O',
      'Z',
      'Y',
      'Q',
      'W',
      'V',
    ])
      expect(created.event).toHaveProperty(field);
    // 149 + the 0.1 % maker fee on it is locked
    expect(ofType(ca, 'outboundAccountPosition')[0]!.event.B).toContainEqual({ a: 'USDT', f: '850.85100000', l: '149.14900000' });

    // the ask drops to the order's price: it fills there, as a maker
    t.feed.push({ symbol: 'SOLUSDT', bids: [['148', '10']], asks: [['148.5', '5']], ts: Date.now() + 1 });
    await ca.until(() => ofType(ca, 'executionReport').length === 2 && ofType(ca, 'outboundAccountPosition').length === 2);
    expect(ofType(ca, 'executionReport')[1]!.event).toMatchObject({
      x: 'TRADE',
      X: 'FILLED',
      l: '1.00000000',
      L: '149.00000000',
      z: '1.00000000',
      Z: '149.00000000',
      n: '0.14900000',
      N: 'USDT',
      m: true,
      w: false,
      i: 1,
      t: 1,
    });
    const after = ofType(ca, 'outboundAccountPosition')[1]!.event.B;
    expect(after).toContainEqual({ a: 'USDT', f: '850.85100000', l: '0.00000000' });
    expect(after).toContainEqual({ a: 'SOL', f: '1.00000000', l: '0.00000000' });

    // b's deposit reaches b only; a's connection saw nothing of b's
    expect((await t.api.post(`/api/v1/accounts/${b}/deposits`, { amount: '25' })).status).toBe(201);
    await cb.until(() => ofType(cb, 'balanceUpdate').length === 1 && ofType(cb, 'outboundAccountPosition').length === 1);
    expect(ofType(cb, 'balanceUpdate')[0]!.event).toMatchObject({ a: 'USDT', d: '25.00000000' });
    expect(ofType(cb, 'executionReport')).toHaveLength(0);
    expect(ofType(ca, 'balanceUpdate')).toHaveLength(0);
    expect(events(ca)).toHaveLength(4);

    // a resting SELL holds the SOL; its cancel gives it back
    const sell = await t.exchange.engine.place({
      accountId: a,
      symbol: 'SOLUSDT',
      side: 'SELL',
      type: 'LIMIT',
      quantity: '1',
      price: '160',
      clientOrderId: 'sell-1',
    });
    if (!sell.ok) throw new Error(sell.message);
    await ca.until(() => ofType(ca, 'outboundAccountPosition').length === 3);
    expect(ofType(ca, 'outboundAccountPosition')[2]!.event.B).toContainEqual({ a: 'SOL', f: '0.00000000', l: '1.00000000' });
    const canceled = await t.exchange.engine.cancel(a, 'SOLUSDT', { clientOrderId: 'sell-1' });
    expect(canceled.ok).toBe(true);
    await ca.until(() => ofType(ca, 'outboundAccountPosition').length === 4);
    expect(ofType(ca, 'executionReport').map((m) => [m.event.c, m.event.x, m.event.X])).toEqual([
      ['rest-1', 'NEW', 'NEW'],
      ['rest-1', 'TRADE', 'FILLED'],
      ['sell-1', 'NEW', 'NEW'],
      ['sell-1', 'CANCELED', 'CANCELED'],
    ]);
    expect(ofType(ca, 'executionReport')[3]!.event).toMatchObject({ C: 'sell-1', S: 'SELL', p: '160.00000000', w: false, i: 2, t: -1 });
    expect(ofType(ca, 'outboundAccountPosition')[3]!.event.B).toContainEqual({ a: 'SOL', f: '1.00000000', l: '0.00000000' });
    // the execution ids increase
    const ids = ofType(ca, 'executionReport').map((m) => m.event.I as number);
    expect([...ids].sort((x, y) => x - y)).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('reports no order placed through the native API (not an order of this surface), only the balances it moved, and Binance reads do not list it', async () => {
    t.feed.push({ symbol: 'SOLUSDT', bids: [['149', '10']], asks: [['150', '10']], ts: Date.now() + 2 });
    const a = await t.openAccount('uds-native', '1000');
    const key = await hmacKeyFor(t.api, a);
    const c = await connect();
    expect((await call(c, 'userDataStream.subscribe.signature', subscribeParams(key))).status).toBe(200);
    const first = await t.exchange.engine.place({ accountId: a, symbol: 'SOLUSDT', side: 'BUY', type: 'LIMIT', quantity: '1', price: '100' });
    if (!first.ok) throw new Error(first.message);
    const native = await t.api.post(`/api/v1/accounts/${a}/orders`, { symbol: 'SOLUSDT', side: 'BUY', qty: '1' });
    expect(native.status).toBe(201);
    await c.until(() => ofType(c, 'outboundAccountPosition').length === 2);
    expect(ofType(c, 'executionReport').map((m) => [m.event.x, m.event.i, m.event.o])).toEqual([['NEW', 1, 'LIMIT']]);
    const get = (path: string, params: Record<string, string>) => signedCall(t.baseUrl, 'GET', `/api/v3${path}`, key, params);
    expect((await get('/allOrders', { symbol: 'SOLUSDT' })).body.map((o: any) => o.orderId)).toEqual([1]);
    expect((await get('/myTrades', { symbol: 'SOLUSDT' })).body).toEqual([]);
    // the account's balances count it
    const account = await get('/account', {});
    expect(account.body.balances.find((b: any) => b.asset === 'SOL')).toMatchObject({ free: '1.00000000' });
  });

  it('stops after unsubscribe and when the key is deleted, with eventStreamTerminated', async () => {
    const a = await t.openAccount('uds-end', '1000');
    const [key1, key2] = [await hmacKeyFor(t.api, a), await hmacKeyFor(t.api, a)];
    const [c1, c2, c3] = [await connect(), await connect(), await connect()];
    for (const [c, k] of [
      [c1, key1],
      [c2, key2],
      [c3, key2],
    ] as const)
      expect((await call(c, 'userDataStream.subscribe.signature', subscribeParams(k))).status).toBe(200);

    expect(await call(c1, 'userDataStream.unsubscribe', { subscriptionId: 0 })).toMatchObject({ status: 200, result: {} });
    await c1.until(() => ofType(c1, 'eventStreamTerminated').length === 1);
    expect((await call(c1, 'session.subscriptions')).result).toEqual([]);
    expect((await t.api.post(`/api/v1/accounts/${a}/deposits`, { amount: '5' })).status).toBe(201);
    // c2 got it, so it was delivered: c1 no longer listens
    await c2.until(() => ofType(c2, 'balanceUpdate').length === 1);
    expect(ofType(c1, 'balanceUpdate')).toHaveLength(0);

    expect((await t.api.del(`/api/v1/accounts/${a}/api-keys/${key2.apiKey}`)).status).toBe(204);
    await c2.until(() => ofType(c2, 'eventStreamTerminated').length === 1);
    await c3.until(() => ofType(c3, 'eventStreamTerminated').length === 1);
    expect((await call(c3, 'session.subscriptions')).result).toEqual([]);
    // the deleted key cannot subscribe again
    expect(await call(c3, 'userDataStream.subscribe.signature', subscribeParams(key2))).toMatchObject({ error: { code: -2015 } });
  });
});
