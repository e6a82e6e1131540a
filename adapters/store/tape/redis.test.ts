import { sharedTestRedis } from '../../../test/support/redis-prefix.ts';
import { describeTapeStore } from './contract.ts';
import { createRedisTapeStore } from './redis.ts';

const shared = sharedTestRedis();

describeTapeStore('redis', async () => {
  const prefix = shared.prefix();
  return { open: async (capacity) => createRedisTapeStore(shared.redis(), { prefix: prefix.slice(0, -1), capacity }) };
});
