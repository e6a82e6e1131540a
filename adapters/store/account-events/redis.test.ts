/** The Redis per-account event logs against the shared contract, and their numbering across a restart. */
import { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import { sharedTestRedis } from '../../../test/support/redis-prefix.ts';
import { createRedisAccountEventLogs } from './redis.ts';
import { describeAccountEventLogs, type TestAccountEvent } from './contract.ts';

const shared = sharedTestRedis();

describeAccountEventLogs('redis', async (capacity) =>
  createRedisAccountEventLogs<TestAccountEvent>(shared.redis(), { prefix: shared.prefix(), ...(capacity ? { capacity } : {}) }),
);

it('goes on numbering and keeps the history after a restart (a new connection)', async () => {
  const prefix = shared.prefix();
  const first = createRedisAccountEventLogs<TestAccountEvent>(new Redis(shared.url()), { prefix, owned: true });
  for (let n = 1; n <= 3; n++) await first.of('acc').append({ type: 'test', accountId: 'acc', n });
  const epoch = await first.of('acc').epoch();
  await first.close();
  const second = createRedisAccountEventLogs<TestAccountEvent>(new Redis(shared.url()), { prefix, owned: true });
  try {
    expect(await second.of('acc').epoch()).toBe(epoch);
    expect((await second.of('acc').readSince(1)).map((e) => e.n)).toEqual([2, 3]);
    expect((await second.of('acc').append({ type: 'test', accountId: 'acc', n: 4 })).seq).toBe(4);
  } finally {
    await second.close();
  }
});
