import { afterEach, describe, expect, it } from 'vitest';
import { sharedTestRedis } from '../../../test/support/redis-prefix.ts';
import type { RedisLease } from './redis.ts';
import { createRedisLease } from './redis.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const redis = sharedTestRedis();

describe('RedisLease', () => {
  const leases: RedisLease[] = [];
  afterEach(async () => {
    for (const l of leases.splice(0)) await l.release().catch(() => undefined);
  });
  const lease = (key: string, node: string, ttlMs = 300) => {
    const l = createRedisLease(redis.redis(), { key, node, ttlMs });
    leases.push(l);
    return l;
  };

  it('is held by one node at a time; each new holder gets a higher fence', async () => {
    const key = `${redis.prefix()}leader`;
    const a = lease(key, 'a');
    const b = lease(key, 'b');
    const first = await a.acquire();
    expect(first).toBeGreaterThan(0);
    expect(await b.acquire()).toBeNull();
    expect(await a.renew()).toBe(true);
    expect(await a.acquire()).toBe(first); // its own lease: the same fence
    await a.release();
    const second = await b.acquire();
    expect(second).toBeGreaterThan(first!);
    expect(await a.renew()).toBe(false);
    expect(await b.holder()).toBe(`b:${second}`);
  });

  it('expires without renewal; the old holder can then neither renew nor release the new lease', async () => {
    const key = `${redis.prefix()}leader`;
    const a = lease(key, 'a', 150);
    const b = lease(key, 'b', 150);
    const fa = await a.acquire();
    await sleep(250);
    const fb = await b.acquire();
    expect(fb).toBeGreaterThan(fa!);
    expect(await a.renew()).toBe(false);
    await a.release();
    expect(await b.holder()).toBe(`b:${fb}`);
  });
});
