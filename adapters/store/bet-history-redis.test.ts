import { describe, expect, it } from 'vitest';
import { createRedisBetHistory } from './bet-history-redis.ts';
import { betHistoryContract, record } from '../../test/support/bet-history-contract.ts';
import { sharedTestRedis } from '../../test/support/redis-prefix.ts';

// real Redis, every key under a prefix owned by this run (never FLUSHDB a shared server)
const shared = sharedTestRedis();

betHistoryContract('redis', () => createRedisBetHistory(shared.redis(), { prefix: shared.prefix() }));

describe('redis bet history layout', () => {
  it('keeps one JSON record per bet and sorted indexes an operator can read', async () => {
    const prefix = shared.prefix();
    const h = createRedisBetHistory(shared.redis(), { prefix });
    await h.put(record('41'));
    const r = shared.redis();
    expect(JSON.parse((await r.get(`${prefix}hist:bet:41`)) ?? 'null')).toEqual(record('41'));
    expect(await r.zrange(`${prefix}hist:bettor:${record('41').bettor}`, '0', '-1')).toEqual(['41']);
    expect(Number(await r.zscore(`${prefix}hist:opened`, "41"))).toBe(record("41").openedAt);
    await r.set(`${prefix}hist:bet:41`, '{damaged');
    expect(await h.get('41')).toBeNull();
  });
});
