/** Redis KeyStore: one hash `<prefix>keystore`, field = address, value = sealed secret key (HSETNX keeps the first). */
import type { RedisClient } from '../redis/client.ts';
import type { KeyStore } from './port.ts';
import { openSealedKeyStore } from './sealed.ts';

/** Opens (or creates) the key store in Redis, encrypted with `key` (see `deriveKeystoreKey`). */
export async function openRedisKeyStore(redis: RedisClient, key: Buffer, options: { prefix?: string } = {}): Promise<KeyStore> {
  const hash = `${options.prefix ?? 'gw:'}keystore`;
  return openSealedKeyStore(
    {
      get: async (name) => (await redis.hget(hash, name)) ?? undefined,
      putIfAbsent: async (name, value) => (await redis.hsetnx(hash, name, value)) === 1,
      names: () => redis.hkeys(hash),
    },
    key,
  );
}
