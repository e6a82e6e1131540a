import { sharedTestRedis } from '../../../test/support/redis-prefix.ts';
import { describeCandleStore } from './contract.ts';
import { createRedisCandleStore } from './redis.ts';

const shared = sharedTestRedis();

describeCandleStore('redis', true, async () => {
  const prefix = shared.prefix();
  return { open: async (retention) => createRedisCandleStore(shared.redis(), prefix, retention) };
});
