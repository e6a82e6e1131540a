import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { RedisSnapshotStore } from './snapshot-redis.ts';
import { snapshotStoreContract } from '../../test/support/snapshot-store-contract.ts';

// real Redis, every key under a prefix owned by this run (never FLUSHDB a shared server)
const redis = new Redis(inject('redisUrl'));
const runPrefix = `test:snapshot-redis:${process.pid}:${Date.now()}:`;
let n = 0;
const fresh = (finalTtlSeconds?: number) => new RedisSnapshotStore(redis, { kind: 'bet', prefix: `${runPrefix}${n++}:`, finalTtlSeconds });

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
    const store = new RedisSnapshotStore(redis, { kind: 'bet', prefix, finalTtlSeconds: 60 });
    await store.save('41', { status: 'active', value: { open: 'placed' } }, false);
    expect(JSON.parse((await redis.get(`${prefix}bet:41`)) ?? 'null')).toEqual({ status: 'active', value: { open: 'placed' } });
    expect(await redis.smembers(`${prefix}bets:live`)).toEqual(['41']);
    expect(await redis.ttl(`${prefix}bet:41`)).toBe(-1);
    await store.save('41', { status: 'done', value: 'refunded' }, true);
    expect(await redis.smembers(`${prefix}bets:live`)).toEqual([]);
    const ttl = await redis.ttl(`${prefix}bet:41`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60);
  });

  it('skips a damaged record at boot instead of failing', async () => {
    const prefix = `${runPrefix}damaged:`;
    const store = new RedisSnapshotStore(redis, { kind: 'bet', prefix });
    await store.save('1', { status: 'active' }, false);
    await redis.set(`${prefix}bet:2`, '{not json');
    await redis.sadd(`${prefix}bets:live`, '2');
    const live = (await store.loadLive()).sort((a, b) => a.id.localeCompare(b.id));
    expect(live).toEqual([
      { id: '1', snapshot: { status: 'active' } },
      { id: '2', snapshot: null },
    ]);
  });
});
