import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { createRedisExchangeStore } from './redis.ts';
import { storeContract } from './contract.ts';
import { startRedisServer, type RunningServer } from '../../../test/support/servers.ts';

let redis: RunningServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

storeContract('Redis', () => createRedisExchangeStore(redis.url, `contract-${randomUUID()}`));
