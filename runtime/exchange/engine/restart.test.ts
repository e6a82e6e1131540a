/**
 * Resting orders survive a restart (docs/orders.md#restart): an engine on a reopened journal file,
 * or on the same Redis (single server or Cluster), reloads every open order at boot, and they go on resting and filling
 * where they were, with their locks intact; canceled and filled orders are not reloaded.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
import { createOrderEngine } from './engine.ts';

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

const dir = mkdtempSync(join(tmpdir(), 'engine-restart-'));
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
    expect(second.engine.restingCount).toBe(0);
    const stored = (await second.ctx.store.load(id))!.bundle.balances;
    const replayed = replayJournal(await second.ctx.store.journal(id));
    expect([replayed.cash.toFixed(), replayed.cashLocked.toFixed(), replayed.positions.SOLUSDT?.locked.toFixed()]).toEqual([stored.cash.toFixed(), '0', '0']);
    await second.ctx.store.close();
  });
});
