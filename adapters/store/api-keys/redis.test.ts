import { describe, expect, it } from 'vitest';
import { sharedTestRedis } from '../../../test/support/redis-prefix.ts';
import { deriveApiKeySealKey } from './codec.ts';
import { describeApiKeyStore } from './contract.ts';
import { createRedisApiKeyStore } from './redis.ts';

const shared = sharedTestRedis();

describeApiKeyStore('redis', true, async () => {
  const prefix = shared.prefix();
  const redis = shared.redis();
  return {
    open: async (key) => createRedisApiKeyStore(redis, key, prefix),
    raw: async () => JSON.stringify(await redis.hgetall(`${prefix}:api-keys`)),
  };
});

describe('redis api key store specifics', () => {
  it('two processes on one Redis see the same keys', async () => {
    const prefix = shared.prefix();
    const key = deriveApiKeySealKey('shared');
    const one = createRedisApiKeyStore(shared.redis(), key, prefix);
    const two = createRedisApiKeyStore(shared.redis(), key, prefix);
    const record = { apiKey: 'x'.repeat(64), accountId: 'a', type: 'HMAC_SHA256' as const, secret: 'sec', label: null, createdAt: new Date().toISOString() };
    await one.put(record);
    expect(await two.get(record.apiKey)).toEqual(record);
  });
});
