/**
 * The store contracts of the gateway's Redis stores and the exchange's small stores, run again on
 * a real Redis Cluster of three masters (started once for this file), through the guarded client
 * `openRedis` makes for a cluster (docs/operations.md#redis-cluster). Every store gets a prefix of
 * its own carrying a hash tag, as the services' prefixes do on a cluster (`{gw}:`, `{exchange}`,
 * each account's `{<id>}`); the prefixes differ, so the stores land on different masters.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisCluster, type RedisClusterHandle } from '../../../test/support/redis-cluster.ts';
import { quietLog } from '../../../test/support/quiet-log.ts';
import { describeAccountEventLogs, type TestAccountEvent } from '../account-events/contract.ts';
import { createRedisAccountEventLogs } from '../account-events/redis.ts';
import { describeApiKeyStore } from '../api-keys/contract.ts';
import { createRedisApiKeyStore } from '../api-keys/redis.ts';
import { betHistoryContract, record } from '../bet-history/contract.ts';
import type { BetRecord } from '../bet-history/port.ts';
import { createRedisBetHistory, redisHistoryLayout } from '../bet-history/redis.ts';
import { describeCandleStore } from '../candles/contract.ts';
import { createRedisCandleStore } from '../candles/redis.ts';
import { describeEventLog, type TestEvent } from '../event-log/contract.ts';
import { createRedisEventLog } from '../event-log/redis.ts';
import { describeIntentStore } from '../intents/contract.ts';
import { createRedisIntentStore } from '../intents/redis.ts';
import { describeKeyStore } from '../keystore/contract.ts';
import { openRedisKeyStore } from '../keystore/redis.ts';
import { createRedisLease } from '../lease/redis.ts';
import { describePriceHistory } from '../price-history/contract.ts';
import { createRedisPriceHistory } from '../price-history/redis.ts';
import { snapshotStoreContract, type ContractEvent } from '../snapshot/contract.ts';
import { createRedisSnapshotStore } from '../snapshot/redis.ts';
import { openRedis, RedisUnavailable, type RedisClient } from './client.ts';
import { clusterTarget } from './cluster.ts';

let cluster: RedisClusterHandle;
let client: RedisClient;
const redis = (): RedisClient => client;

beforeAll(async () => {
  cluster = await startRedisCluster();
  client = openRedis(clusterTarget(cluster.nodes), { log: quietLog, name: 'cluster-contracts' });
});

afterAll(async () => {
  client?.disconnect();
  await cluster?.stop();
});

/** A fresh gateway-style prefix whose keys share one hash slot (`{...}:`, like `{gw}:`). */
const tagged = (): string => `{test:${randomUUID()}}:`;
/** A fresh exchange-style prefix whose keys share one hash slot (like `{exchange}`). */
const taggedExchange = (): string => `{exchange-test:${randomUUID()}}`;

describe('on a Redis Cluster', () => {
  describeEventLog('redis cluster', async (capacity) => createRedisEventLog<TestEvent>(redis(), { prefix: tagged(), ...(capacity ? { capacity } : {}) }));

  snapshotStoreContract('redis cluster', () => {
    const prefix = tagged();
    return { store: createRedisSnapshotStore<ContractEvent>(redis(), { kind: 'bet', prefix }), events: createRedisEventLog(redis(), { prefix }) };
  });

  betHistoryContract('redis cluster', () => createRedisBetHistory(redis(), { prefix: tagged() }));

  describePriceHistory('redis cluster', async (retention) => createRedisPriceHistory(redis(), { prefix: tagged(), retention }));

  describeIntentStore('redis cluster', async () => {
    const prefix = tagged();
    return { open: async () => createRedisIntentStore(redis(), { prefix }) };
  });

  describeKeyStore('redis cluster', async () => {
    const prefix = tagged();
    return {
      open: (key) => openRedisKeyStore(redis(), key, { prefix }),
      raw: async (name) => (await redis().hget(`${prefix}keystore`, name)) ?? undefined,
      tamper: async (name, mutate) => {
        await redis().hset(`${prefix}keystore`, name, mutate((await redis().hget(`${prefix}keystore`, name)) ?? ''));
      },
    };
  });

  describeApiKeyStore('redis cluster', true, async () => {
    const prefix = taggedExchange();
    return {
      open: async (key) => createRedisApiKeyStore(redis(), key, prefix),
      raw: async () => JSON.stringify(await redis().hgetall(`${prefix}:api-keys`)),
    };
  });

  describeCandleStore('redis cluster', true, async () => {
    const prefix = taggedExchange();
    return { open: async (retention) => createRedisCandleStore(redis(), prefix, retention) };
  });

  describeAccountEventLogs('redis cluster', async (capacity) =>
    createRedisAccountEventLogs<TestAccountEvent>(redis(), { prefix: `exchange-test:${randomUUID()}`, cluster: true, ...(capacity ? { capacity } : {}) }),
  );

  it("writes a bet's snapshot, live set, events and history records in one commit, and prunes them in one MULTI", async () => {
    const prefix = tagged();
    const snapshots = createRedisSnapshotStore<ContractEvent, BetRecord>(redis(), { kind: 'bet', prefix, records: redisHistoryLayout(prefix) });
    const history = createRedisBetHistory(redis(), { prefix });
    const open = record('7', { openedAt: 1_000 });
    const out = await snapshots.commit('7', { snapshot: { status: 'active' }, final: false, events: [{ type: 'bet_open', id: '7' }], rev: 1, records: [open] });
    expect(out).toEqual({ applied: true, events: [{ type: 'bet_open', id: '7', seq: 1 }] });
    expect(await snapshots.loadLive()).toEqual([{ id: '7', snapshot: { status: 'active' }, rev: 1 }]);
    expect(await history.get('7')).toEqual(open);
    expect(await history.pruneOpenedBefore(2_000)).toBe(1);
    expect(await history.get('7')).toBeNull();
  });

  it('holds a leader lease and its fence counter in one slot', async () => {
    const key = `${tagged()}leader`;
    const a = createRedisLease(redis(), { key, node: 'a', ttlMs: 5_000 });
    const b = createRedisLease(redis(), { key, node: 'b', ttlMs: 5_000 });
    const fence = await a.acquire();
    expect(fence).toBeGreaterThan(0);
    expect(await b.acquire()).toBeNull();
    await a.release();
    expect(await b.acquire()).toBeGreaterThan(fence!);
    await b.release();
  });

  it('keeps the per-account logs on several masters: each account is numbered on its own', async () => {
    const logs = createRedisAccountEventLogs<TestAccountEvent>(redis(), { prefix: `exchange-test:${randomUUID()}`, cluster: true });
    const ids = Array.from({ length: 12 }, (_, i) => `acct-${i}`);
    const out = await logs.appendMany(ids.map((accountId) => ({ accountId, events: [{ type: 'test', accountId, n: 1 } as TestAccountEvent] })));
    expect(out.map((events) => events.map((e) => e.seq))).toEqual(ids.map(() => [1]));
    await logs.delete('acct-3');
    expect(await logs.of('acct-3').lastSeq()).toBe(0);
  });
});

describe('the guarded cluster client', () => {
  it('answers RedisUnavailable, within its command timeout, when no node of the cluster answers', async () => {
    const down = openRedis(clusterTarget('127.0.0.1:1'), { log: quietLog, name: 'down', commandTimeoutMs: 300 });
    try {
      await expect(down.ping()).rejects.toBeInstanceOf(RedisUnavailable);
    } finally {
      down.disconnect();
    }
  });
});
