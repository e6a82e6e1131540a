import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { redisExchangeStore } from './exchange-redis.ts';
import { storeContract } from '../../test/exchange/store-contract.ts';
import { startRedisServer, type RunningServer } from '../../test/support/servers.ts';

let redis: RunningServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

storeContract('Redis', () => redisExchangeStore(redis.url, `contract-${randomUUID()}`));
