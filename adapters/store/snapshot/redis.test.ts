import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createRedisEventLog } from '../event-log/redis.ts';
import { createRedisSnapshotStore } from './redis.ts';
import { save, snapshotStoreContract, type ContractEvent } from './contract.ts';

// real Redis, every key under a prefix owned by this run (never FLUSHDB a shared server)
const redis = new Redis(inject('redisUrl'));
const runPrefix = `test:snapshot-redis:${process.pid}:${Date.now()}:`;
let n = 0;
const fresh = () => {
  const prefix = `${runPrefix}${n++}:`;
  return { store: createRedisSnapshotStore<ContractEvent>(redis, { kind: 'bet', prefix }), events: createRedisEventLog(redis, { prefix }) };
};

afterAll(async () => {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${runPrefix}*`, 'COUNT', 500);
    if (keys.length) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  await redis.quit();
});

snapshotStoreContract('redis', () => fresh());

describe('redis snapshot layout', () => {
  it('keeps one JSON string per chain and a live set an operator can read', async () => {
    const prefix = `${runPrefix}layout:`;
    const store = createRedisSnapshotStore<ContractEvent>(redis, { kind: 'bet', prefix, finalTtlSeconds: 60 });
    await save(store, '41', { status: 'active', value: { open: 'placed' } }, false, 1);
    expect(JSON.parse((await redis.get(`${prefix}bet:41`)) ?? 'null')).toEqual({ status: 'active', value: { open: 'placed' } });
    expect(await redis.smembers(`${prefix}bets:live`)).toEqual(['41']);
    expect(await redis.ttl(`${prefix}bet:41`)).toBe(-1);
    expect(await redis.get(`${prefix}bet:41:rev`)).toBe('1');
    await save(store, '41', { status: 'done', value: 'refunded' }, true, 2);
    expect(await redis.smembers(`${prefix}bets:live`)).toEqual([]);
    const ttl = await redis.ttl(`${prefix}bet:41`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60);
    expect(await redis.ttl(`${prefix}bet:41:rev`)).toBeGreaterThan(0);
  });

  it('skips a damaged record at boot instead of failing', async () => {
    const prefix = `${runPrefix}damaged:`;
    const store = createRedisSnapshotStore<ContractEvent>(redis, { kind: 'bet', prefix });
    await save(store, '1', { status: 'active' }, false, 1);
    await redis.set(`${prefix}bet:2`, '{not json');
    await redis.sadd(`${prefix}bets:live`, '2');
    const live = (await store.loadLive()).sort((a, b) => a.id.localeCompare(b.id));
    expect(live).toEqual([
      { id: '1', snapshot: { status: 'active' }, rev: 1 },
      { id: '2', snapshot: null, rev: 0 },
    ]);
  });
});
