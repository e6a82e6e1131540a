import { describe, expect, it } from 'vitest';
import { sharedTestRedis } from '../../../test/support/redis-prefix.ts';
import { deriveKeystoreKey } from './crypto.ts';
import { openRedisKeyStore } from './redis.ts';
import { describeKeyStore } from './contract.ts';

const shared = sharedTestRedis();

describeKeyStore('redis', async () => {
  const prefix = shared.prefix();
  const redis = shared.redis();
  return {
    open: (key) => openRedisKeyStore(redis, key, { prefix }),
    raw: async (name) => (await redis.hget(`${prefix}keystore`, name)) ?? undefined,
    tamper: async (name, mutate) => {
      await redis.hset(`${prefix}keystore`, name, mutate((await redis.hget(`${prefix}keystore`, name)) ?? ''));
    },
  };
});

describe('redis key store specifics', () => {
  it("two stores on the same hash see each other's keys (two gateway processes)", async () => {
    const prefix = shared.prefix();
    const key = deriveKeystoreKey('shared secret');
    const one = await openRedisKeyStore(shared.redis(), key, { prefix });
    const two = await openRedisKeyStore(shared.redis(), key, { prefix });
    const pair = await one.create();
    expect((await two.get(pair.publicKey.toBase58()))?.publicKey.toBase58()).toBe(pair.publicKey.toBase58());
  });
});
