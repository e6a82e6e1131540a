/**
 * Resting orders survive a restart (docs/orders.md#restart): an engine on a reopened journal file,
 * or on the same Redis (single server or Cluster), reloads every open order at boot, and they go on resting and filling
 * where they were, with their locks intact; canceled and filled orders are not reloaded. Orders and
 * fills keep their integer ids (docs/orders.md#ids), and two processes on one Redis never give one twice.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BookSnapshot } from '../../../adapters/feed/port.ts';
import { openFileExchangeStore } from '../../../adapters/store/exchange/file.ts';
import type { ExchangeStore } from '../../../adapters/store/exchange/port.ts';
import { createRedisExchangeStore } from '../../../adapters/store/exchange/redis.ts';
import { log } from '../../../kernel/log.ts';
import { replayJournal } from '../../../machines/exchange/journal.ts';
import { dec } from '../../../machines/exchange/money.ts';
import { startRedisServer, type RunningServer } from '../../../test/support/servers.ts';
import { startRedisCluster, type RedisClusterHandle } from '../../../test/support/redis-cluster.ts';
import { Cluster } from 'ioredis';
import { openAccount } from '../accounts.ts';
import { bookCache } from '../book-cache.ts';
import type { ExchangeContext } from '../context.ts';
import { placeOrder as placeNative } from '../orders.ts';
import { createOrderEngine } from './engine.ts';
import { tempDir } from '../../../test/support/temp-dir.ts';

let clock = 5_000_000;
const sol = (bid: string, ask: string): BookSnapshot => ({ symbol: 'SOLUSDT', bids: [[bid, '10']], asks: [[ask, '10']], ts: ++clock });

function engineOn(store: ExchangeStore) {
  const books = bookCache(30_000, () => clock);
  const ctx: ExchangeContext = { store, books, now: () => new Date(clock), log: log.child({}, { level: 'silent' }) };
  const engine = createOrderEngine(ctx);
  const feed = async (b: BookSnapshot) => {
    if (books.put(b)) engine.onBook(b);
    await engine.settled();
  };
  return { ctx, engine, feed };
}

const dir = tempDir('engine-restart-');
let redis: RunningServer;
let cluster: RedisClusterHandle;
let clusterClient: Cluster;
beforeAll(async () => {
  redis = await startRedisServer();
  cluster = await startRedisCluster();
  clusterClient = new Cluster(cluster.nodes.split(',').map((a) => ({ host: a.split(':')[0], port: Number(a.split(':')[1]) })));
}, 60_000);
afterAll(async () => {
  clusterClient?.disconnect();
  await cluster?.stop();
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe.each([
  ['journal file', () => openFileExchangeStore(join(dir, 'ledger.log'))],
  [
    'Redis',
    (() => {
      const prefix = `restart-${randomUUID()}`;
      return () => createRedisExchangeStore(redis.url, prefix);
    })(),
  ],
  [
    // an open order is found at start in its account's own set, written by the order's commit (no global index)
    'Redis Cluster',
    (() => {
      const prefix = `restart-${randomUUID()}`;
      return () => createRedisExchangeStore(clusterClient, prefix);
    })(),
  ],
])('restart on the %s', (_name, open) => {
  it('reloads open orders with their locks; they fill on the next book that reaches them', async () => {
    const first = engineOn(open());
    await first.feed(sol('149', '150'));
    const opened = await openAccount(first.ctx, `restart-${clock}`, dec('10000'), dec('0.001'));
    if (!opened.ok) throw new Error(opened.message);
    const id = opened.value.id;
    const place = async (side: 'BUY' | 'SELL', type: 'LIMIT' | 'MARKET', quantity: string, price?: string) => {
      const r = await first.engine.place({ accountId: id, symbol: 'SOLUSDT', side, type, quantity, ...(price ? { price } : {}) });
      if (!r.ok) throw new Error(r.message);
      return r.value.order;
    };
    await place('BUY', 'MARKET', '2');
    const buy = await place('BUY', 'LIMIT', '1', '140');
    const sell = await place('SELL', 'LIMIT', '1', '160');
    const gone = await place('BUY', 'LIMIT', '1', '130');
    expect((await first.engine.cancel(id, 'SOLUSDT', { orderId: gone.orderId })).ok).toBe(true);
    await first.ctx.store.close();

    const second = engineOn(open());
    expect(await second.engine.boot()).toBe(2);
    expect(second.engine.restingCount).toBe(2);
    const balances = await second.engine.balances(id);
    expect(balances.ok && balances.value).toEqual([
      { asset: 'USDT', free: '9559.5600000000', locked: '140.1400000000' },
      { asset: 'SOL', free: '1.0000000000', locked: '1.0000000000' },
    ]);
    await second.feed(sol('161', '162'));
    await second.feed(sol('138', '139'));
    const [b, s] = await Promise.all([
      second.engine.order(id, 'SOLUSDT', { orderId: buy.orderId }),
      second.engine.order(id, 'SOLUSDT', { orderId: sell.orderId }),
    ]);
    expect([b.ok && b.value.status, s.ok && s.value.status]).toEqual(['FILLED', 'FILLED']);
    // the integer ids (docs/orders.md#ids) are the same after the restart, and the next ones follow on
    expect([buy.number, sell.number, gone.number]).toEqual([2, 3, 4]);
    expect([b.ok && b.value.number, s.ok && s.value.number]).toEqual([2, 3]);
    const byNumber = await second.engine.order(id, 'SOLUSDT', { number: 3 });
    expect(byNumber.ok && byNumber.value.orderId).toBe(sell.orderId);
    const all = await second.engine.allOrders(id, 'SOLUSDT');
    expect(all.ok && all.value.map((o) => [o.number, o.status])).toEqual([
      [1, 'FILLED'],
      [2, 'FILLED'],
      [3, 'FILLED'],
      [4, 'CANCELED'],
    ]);
    const trades = await second.engine.myTrades(id, 'SOLUSDT');
    // the market order's fill before the restart, then the sell's and the buy's after it
    expect(trades.ok && trades.value.map((t) => [t.number, t.orderNumber, t.liquidity])).toEqual([
      [1, 1, 'TAKER'],
      [2, 3, 'MAKER'],
      [3, 2, 'MAKER'],
    ]);
    expect(second.engine.restingCount).toBe(0);
    const stored = (await second.ctx.store.load(id))!.bundle.balances;
    const replayed = replayJournal(await second.ctx.store.journal(id));
    expect([replayed.cash.toFixed(), replayed.cashLocked.toFixed(), replayed.positions.SOLUSDT?.locked.toFixed()]).toEqual([stored.cash.toFixed(), '0', '0']);
    const next = await second.engine.place({ accountId: id, symbol: 'SOLUSDT', side: 'BUY', type: 'LIMIT', quantity: '1', price: '100' });
    expect(next.ok && next.value.order.number).toBe(5);
    await second.ctx.store.close();
  });
});

describe('two exchange processes on one Redis', () => {
  it('never give two orders or two fills of one account the same integer id, whatever runs at once', async () => {
    const prefix = `two-${randomUUID()}`;
    // two stores, engines and account caches, as two processes have: their commits race on the account's version
    let conflicts = 0;
    const counted = (store: ExchangeStore): ExchangeStore => ({
      ...store,
      commit: async (...args) => {
        const out = await store.commit(...args);
        if (out === 'conflict') conflicts++;
        return out;
      },
    });
    const [p1, p2] = [engineOn(counted(createRedisExchangeStore(redis.url, prefix))), engineOn(counted(createRedisExchangeStore(redis.url, prefix)))];
    const book = sol('149', '150');
    await p1.feed(book);
    await p2.feed(book);
    const opened = await openAccount(p1.ctx, `two-${clock}`, dec('100000'), dec('0.001'));
    if (!opened.ok) throw new Error(opened.message);
    const id = opened.value.id;
    const answered: number[] = [];
    const work = [p1, p2].flatMap((p, n) =>
      Array.from({ length: 12 }, async (_, i) => {
        if (i % 3 === 0) {
          // a native market order: it commits on the account too (racing on its version), but is not one of the engine's orders
          const r = await placeNative(p.ctx, { accountId: id, symbol: 'SOLUSDT', side: 'BUY', qty: '0.01', idempotencyKey: null });
          if (!r.ok) throw new Error(r.message);
          return;
        }
        const r = await p.engine.place({
          accountId: id,
          symbol: 'SOLUSDT',
          side: 'BUY',
          type: i % 3 === 1 ? 'MARKET' : 'LIMIT',
          quantity: '0.01',
          ...(i % 3 === 2 ? { price: `${100 + n}` } : {}),
        });
        if (!r.ok) throw new Error(r.message);
        answered.push(r.value.order.number);
      }),
    );
    await Promise.all(work);
    // commits did race (a retried one must leave no gap and no duplicate)
    expect(conflicts).toBeGreaterThan(0);
    const orders = (await p1.ctx.store.engineOrders(id)) as { context: { orderId: string; number?: number } }[];
    expect(orders).toHaveLength(16);
    expect(orders.map((o) => o.context.number)).toEqual(orders.map((_, i) => i + 1));
    expect(new Set(answered).size).toBe(answered.length);
    for (const n of answered) expect(n).toBeLessThanOrEqual(16);
    const places = new Map(orders.map((o, i) => [o.context.orderId, i + 1]));
    const trades = await p2.ctx.store.trades(id);
    expect(trades.length).toBeGreaterThanOrEqual(8); // the 8 MARKET orders; a LIMIT may fill too
    expect(trades.map((t) => [t.number, t.orderNumber])).toEqual(trades.map((t, i) => [i + 1, places.get(t.orderId)]));
    await p1.ctx.store.close();
    await p2.ctx.store.close();
  });
});
