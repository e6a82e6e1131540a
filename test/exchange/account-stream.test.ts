/**
 * The native account stream on a running exchange (docs/exchange-api.md#account-stream): an
 * account's order, balance and cash events with a per-account `seq`; a socket killed in the middle
 * of a burst resumes from the last seq it got with nothing missing and nothing twice; after the
 * exchange restarts on the same Redis the numbering goes on and a resume still recovers; another
 * epoch is told `recovered: false`; bad queries and unknown accounts are refused at the upgrade.
 */
import { Redis } from 'ioredis';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisAccountEventLogs } from '../../adapters/store/account-events/redis.ts';
import { createRedisExchangeStore } from '../../adapters/store/exchange/redis.ts';
import { AccountEventBodySchema, AccountEventSchema, type AccountEvent } from '../../runtime/exchange/account-events.ts';
import { checkAnswer } from '../support/openapi-contract.ts';
import { sharedTestRedis } from '../support/redis-prefix.ts';
import { collect, type Collector } from '../support/ws-collector.ts';
import { eventually } from '../support/eventually.ts';
import { hmacKeyFor } from './binance-support.ts';
import { startInProcess, subscribeParams, type InProcessExchange } from './in-process.ts';

const redis = sharedTestRedis();
let prefix: string;
let t: InProcessExchange;
const sockets: Collector[] = [];

/** An exchange on the suite's Redis keys (ledger and account logs), as a restart finds them. */
const start = () =>
  startInProcess(
    createRedisExchangeStore(redis.url(), `${prefix}exchange`),
    createRedisAccountEventLogs(new Redis(redis.url()), { prefix: `${prefix}exchange`, owned: true, parse: (raw) => v.parse(AccountEventBodySchema, raw) }),
  );

beforeAll(async () => {
  prefix = redis.prefix();
  t = await start();
  t.feed.push({ symbol: 'SOLUSDT', bids: [['149', '10']], asks: [['150', '10']], ts: Date.now() });
});
afterAll(async () => {
  for (const s of sockets) s.close();
  await t?.exchange.stop();
});

const connect = async (accountId: string, query = '') => {
  const c = await collect(`${t.wsUrl}/api/v1/accounts/${accountId}/ws${query}`);
  sockets.push(c);
  return c;
};
/** The events a socket got, each checked against the wire schema. */
const received = (c: Collector): AccountEvent[] => c.messages.map((m) => v.parse(AccountEventSchema, m) as AccountEvent);
const seqs = (c: Collector) => received(c).map((e) => e.seq);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const deposit = async (id: string, amount: string) => expect((await t.api.post(`/api/v1/accounts/${id}/deposits`, { amount })).status).toBe(201);

describe('the account stream', () => {
  it('sends an order that rests, then fills when the book moves, with its balances, numbered per account', async () => {
    const a = await t.openAccount('stream-a', '1000');
    const other = await t.openAccount('stream-other', '1000');
    const c = await connect(a);
    await c.until(() => c.resumes.length === 1);
    expect(c.resumes[0]).toMatchObject({ type: 'resume', accountId: a, recovered: true, seq: 0 });
    await deposit(other, '1');
    const placed = await t.exchange.engine.place({ accountId: a, symbol: 'SOLUSDT', side: 'BUY', type: 'LIMIT', quantity: '2', price: '149' });
    if (!placed.ok) throw new Error(placed.message);
    t.feed.push({ symbol: 'SOLUSDT', bids: [['148', '10']], asks: [['148.5', '1']], ts: Date.now() + 1 });
    await c.until(() => received(c).length === 4);
    const events = received(c);
    expect(events.map((e) => [e.seq, e.type])).toEqual([
      [1, 'order'],
      [2, 'balance'],
      [3, 'order'],
      [4, 'balance'],
    ]);
    expect(events[0]).toMatchObject({ execution: 'NEW', status: 'NEW', orderType: 'LIMIT', timeInForce: 'GTC', orderId: placed.value.order.orderId });
    // the book showed 1 at or below 149: half the order fills there, as a maker, with that book's time
    expect(events[2]).toMatchObject({
      execution: 'TRADE',
      status: 'PARTIALLY_FILLED',
      executedQty: '1.0000000000',
      lastFill: { price: '149.0000000000', liquidity: 'MAKER' },
    });
    expect(events.every((e) => e.accountId === a)).toBe(true);
  });

  it("sends a native market order's fill and balances with no gap in the seqs, and the user data stream only the engine order's report", async () => {
    t.feed.push({ symbol: 'SOLUSDT', bids: [['149', '10']], asks: [['150', '10']], ts: Date.now() + 2 });
    const a = await t.openAccount('stream-native', '1000');
    const c = await connect(a);
    await c.until(() => c.resumes.length === 1);
    const uds = await collect(`${t.wsUrl}/ws-api/v3`);
    sockets.push(uds);
    uds.socket.send(JSON.stringify({ id: 1, method: 'userDataStream.subscribe.signature', params: subscribeParams(await hmacKeyFor(t.api, a)) }));
    await uds.until((ms) => ms.some((m) => m.id === 1));
    const placed = await t.exchange.engine.place({ accountId: a, symbol: 'SOLUSDT', side: 'BUY', type: 'LIMIT', quantity: '1', price: '100' });
    if (!placed.ok) throw new Error(placed.message);
    expect((await t.api.post(`/api/v1/accounts/${a}/orders`, { symbol: 'SOLUSDT', side: 'BUY', qty: '1' })).status).toBe(201);
    await deposit(a, '1');
    await c.until(() => received(c).length === 6);
    // the native stream: the engine order's events, the native order's fill and balances, the deposit: seqs 1 to 6, no order event of the native order
    expect(received(c).map((e) => [e.seq, e.type])).toEqual([
      [1, 'order'],
      [2, 'balance'],
      [3, 'fill'],
      [4, 'balance'],
      [5, 'cash'],
      [6, 'balance'],
    ]);
    // the user data stream: the engine order's report only (a native market order is not an order of that surface: docs/orders.md#ids), then the deposit
    const reports = () => uds.messages.map((m) => (m.event ?? {}) as Record<string, unknown>).filter((e) => e.e === 'executionReport');
    await uds.until((ms) => ms.some((m) => (m.event as Record<string, unknown> | undefined)?.e === 'balanceUpdate'));
    expect(reports().map((r) => [r.i, r.x, r.t])).toEqual([[1, 'NEW', -1]]);
  });

  it('resumes a socket killed in the middle of a burst from its last seq, with no gap and no duplicate', async () => {
    const a = await t.openAccount('stream-burst', '1000');
    const first = await connect(a);
    await first.until(() => first.resumes.length === 1);
    const epoch = first.resumes[0]!.epoch as string;
    const burst = Promise.all(range(1, 30).map((i) => deposit(a, `${i}`)));
    await first.until(() => first.messages.length >= 7);
    first.socket.terminate();
    await burst;
    const got = seqs(first);
    const last = got[got.length - 1]!;
    expect(got).toEqual(range(1, last));
    expect(last).toBeLessThan(60);

    const second = await connect(a, `?since=${last}&epoch=${epoch}`);
    await second.until(() => seqs(second).includes(60));
    expect(second.resumes[0]).toMatchObject({ recovered: true, epoch, seq: 60 });
    expect(seqs(second)).toEqual(range(last + 1, 60));
    // then live, numbered on
    await deposit(a, '100');
    await second.until(() => seqs(second).includes(62));
    expect(seqs(second)).toEqual(range(last + 1, 62));
    const cash = received(second).filter((e) => e.type === 'cash');
    expect(cash.map((e) => (e.type === 'cash' ? e.amount : ''))).toContain('100.0000000000');
  });

  it('goes on numbering after a restart, and a resume across it recovers what was missed; another epoch is told to reload', async () => {
    const a = await t.openAccount('stream-restart', '1000');
    const before = await connect(a);
    await before.until(() => before.resumes.length === 1);
    const epoch = before.resumes[0]!.epoch as string;
    const placed = await t.exchange.engine.place({ accountId: a, symbol: 'SOLUSDT', side: 'SELL', type: 'LIMIT_MAKER', quantity: '0', price: '151' });
    expect(placed.ok).toBe(false);
    await t.exchange.engine.place({ accountId: a, symbol: 'SOLUSDT', side: 'BUY', type: 'LIMIT', quantity: '1', price: '140' });
    await before.until(() => before.messages.length === 2);
    const wsApi = await collect(`${t.wsUrl}/ws-api/v3`);
    await t.exchange.stop();
    // a stop closes the open sockets as going away
    expect(await before.closed).toBe(1001);
    expect(await wsApi.closed).toBe(1001);
    t = await start();
    t.feed.push({ symbol: 'SOLUSDT', bids: [['139', '10']], asks: [['139.5', '10']], ts: Date.now() });
    // the reloaded order fills on the new process's book; its events come after the ones before the restart
    const resumed = await connect(a, `?since=2&epoch=${epoch}`);
    await resumed.until(() => received(resumed).some((e) => e.type === 'order' && e.status === 'FILLED'));
    await deposit(a, '1');
    await resumed.until(() => received(resumed).some((e) => e.type === 'cash'));
    expect(resumed.resumes[0]).toMatchObject({ recovered: true, epoch });
    const got = seqs(resumed);
    expect(got).toEqual(range(3, got.length + 2));
    expect(received(resumed)[0]).toMatchObject({ type: 'order', execution: 'TRADE', status: 'FILLED' });

    const stranger = await connect(a, '?since=3&epoch=another');
    await stranger.until(() => stranger.resumes.length === 1 && seqs(stranger).length >= got.length + 2);
    expect(stranger.resumes[0]).toMatchObject({ recovered: false, epoch });
    expect(seqs(stranger).slice(0, got.length + 2)).toEqual(range(1, got.length + 2));
  });

  it('logs an account from its first connect on: what it did before is not numbered', async () => {
    const a = await t.openAccount('stream-late', '1000');
    await deposit(a, '1');
    await deposit(a, '2');
    const c = await connect(a);
    await c.until(() => c.resumes.length === 1);
    expect(c.resumes[0]).toMatchObject({ recovered: true, seq: 0 });
    await deposit(a, '3');
    await c.until(() => c.messages.length === 2);
    expect(received(c).map((e) => [e.seq, e.type])).toEqual([
      [1, 'cash'],
      [2, 'balance'],
    ]);
    expect(received(c)[0]).toMatchObject({ amount: '3.0000000000' });
  });

  it('is logged by another exchange process on the same Redis once the account is enrolled, and the user data stream gets the logged events too', async () => {
    const a = await t.openAccount('stream-two', '1000');
    // the other process starts before the account is enrolled: it learns of the enrollment by its refresh
    const other = await start();
    const c = await connect(a);
    await c.until(() => c.resumes.length === 1);
    const uds = await collect(`${t.wsUrl}/ws-api/v3`);
    sockets.push(uds);
    uds.socket.send(JSON.stringify({ id: 1, method: 'userDataStream.subscribe.signature', params: subscribeParams(await hmacKeyFor(t.api, a)) }));
    await uds.until((ms) => ms.some((m) => m.id === 1 && m.status === 200));
    try {
      // the other process reads the enrollment within its refresh (a second): its deposits are logged from then on
      await eventually(
        'a deposit through the other process to be logged',
        async () => {
          const r = await other.api.post(`/api/v1/accounts/${a}/deposits`, { amount: '1' });
          expect(r.status).toBe(201);
          return (await t.exchange.accountStream.logOf(a).lastSeq()) > 0 ? true : null;
        },
        10_000,
        300,
      );
    } finally {
      await other.exchange.stop();
    }
    await deposit(a, '7');
    // here: live on both streams, numbered after what the other process logged
    await c.until(() => received(c).some((e) => e.type === 'cash' && e.amount === '7.0000000000'));
    const seven = received(c).find((e) => e.type === 'cash' && e.amount === '7.0000000000')!;
    // numbered after what the other process logged (the first connect saw nothing)
    expect(seven.seq).toBeGreaterThan(2);
    await uds.until((ms) => ms.some((m) => (m.event as { e?: string; d?: string } | undefined)?.d === '7.00000000'));
    // a resume from 0 replays the other process's events too, contiguous
    const replay = await connect(a, '?since=0');
    await replay.until(() => seqs(replay).includes(seven.seq));
    expect(seqs(replay)).toEqual(range(1, seqs(replay).length));
    expect(received(replay).filter((e) => e.type === 'cash' && e.amount === '1.0000000000').length).toBeGreaterThan(0);
  });

  it('refuses a bad since and an account that does not exist at the upgrade', async () => {
    const a = await t.openAccount('stream-refusals');
    await expect(connect(a, '?since=-1')).rejects.toThrow('upgrade refused: 400');
    await expect(connect(a, '?since=abc')).rejects.toThrow('upgrade refused: 400');
    await expect(connect('%E0%A4%A')).rejects.toThrow('upgrade refused: 400');
    await expect(connect('00000000-0000-0000-0000-000000000000')).rejects.toThrow('upgrade refused: 404');
    // a plain GET is told to upgrade
    for (const path of [`/api/v1/accounts/${a}/ws`, '/ws-api/v3']) {
      const plain = await fetch(`${t.baseUrl}${path}`);
      const text = await plain.text();
      expect(plain.status).toBe(426);
      // as the served OpenAPI document says
      await checkAnswer(t.baseUrl, { method: 'GET', path, status: plain.status, contentType: plain.headers.get('content-type'), text });
    }
  });
});
