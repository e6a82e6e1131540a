import { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import { sharedTestRedis } from '../../../test/support/redis-prefix.ts';
import { createRedisEventLog } from './redis.ts';
import { describeEventLog, type TestEvent } from './contract.ts';

const shared = sharedTestRedis();

describeEventLog('redis', async (capacity) => createRedisEventLog<TestEvent>(shared.redis(), { prefix: shared.prefix(), ...(capacity ? { capacity } : {}) }));

it('shares one sequence between two connections (two processes) and survives a restart', async () => {
  const prefix = shared.prefix();
  const a = new Redis(shared.url());
  const b = new Redis(shared.url());
  const logA = createRedisEventLog<TestEvent>(a, { prefix });
  const logB = createRedisEventLog<TestEvent>(b, { prefix });
  const got = await Promise.all(Array.from({ length: 40 }, (_, n) => (n % 2 ? logA : logB).append({ type: 'test', n })));
  expect(new Set(got.map((e) => e.seq)).size).toBe(40);
  a.disconnect();
  b.disconnect();
  const c = new Redis(shared.url());
  try {
    const logC = createRedisEventLog<TestEvent>(c, { prefix });
    expect(await logC.lastSeq()).toBe(40);
    expect((await logC.readSince(38)).map((e) => e.seq)).toEqual([39, 40]);
    expect((await logC.append({ type: 'test', n: 99 })).seq).toBe(41);
  } finally {
    c.disconnect();
  }
});

it('refuses a record that is not an event when reading back', async () => {
  const prefix = shared.prefix();
  const redis = shared.redis();
  await redis.xadd(`${prefix}events`, '1-0', 'e', '[1,2]');
  await expect(createRedisEventLog<TestEvent>(redis, { prefix }).readSince(0)).rejects.toThrow(/not an event object/);
});
