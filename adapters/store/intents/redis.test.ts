import { sharedTestRedis } from '../../../test/support/redis-prefix.ts';
import { describeIntentStore } from './contract.ts';
import { createRedisIntentStore } from './redis.ts';

const shared = sharedTestRedis();

describeIntentStore('redis', async () => {
  const prefix = shared.prefix();
  return { open: async () => createRedisIntentStore(shared.redis(), { prefix }) };
});
