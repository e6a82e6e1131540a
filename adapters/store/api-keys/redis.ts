/**
 * Redis API key store, readable by an operator:
 *   <p>:api-keys                   hash  API key -> stored record (JSON, HMAC secret sealed: `codec.ts`)
 *   <p>:account:<id>:api-keys      zset  the account's API keys by creation time
 * Several exchange processes on one Redis share it (they need the same server key).
 */
import type { RedisClient } from '../redis/client.ts';
import { decodeApiKey, encodeApiKey } from './codec.ts';
import type { ApiKeyStore } from './port.ts';

/** A store on `redis` under `prefix` (default `exchange`), sealing secrets with `key`; `close` leaves the client open. */
export function createRedisApiKeyStore(redis: RedisClient, key: Buffer, prefix = 'exchange'): ApiKeyStore {
  const hash = `${prefix}:api-keys`;
  const ofAccount = (id: string) => `${prefix}:account:${id}:api-keys`;
  return {
    async put(record) {
      await redis
        .multi()
        .hset(hash, record.apiKey, encodeApiKey(key, record))
        .zadd(ofAccount(record.accountId), Date.parse(record.createdAt), record.apiKey)
        .exec();
    },
    async get(apiKey) {
      const text = await redis.hget(hash, apiKey);
      return text === null ? undefined : decodeApiKey(key, text);
    },
    async listByAccount(accountId) {
      const names = await redis.zrange(ofAccount(accountId), '0', '-1');
      if (names.length === 0) return [];
      const texts = await redis.hmget(hash, ...names);
      return texts.filter((t): t is string => t !== null).map((t) => decodeApiKey(key, t));
    },
    async delete(accountId, apiKey) {
      const removed = await redis.zrem(ofAccount(accountId), apiKey);
      if (removed === 0) return false;
      await redis.hdel(hash, apiKey);
      return true;
    },
    async deleteAccount(accountId) {
      const names = await redis.zrange(ofAccount(accountId), '0', '-1');
      if (names.length > 0)
        await redis
          .multi()
          .hdel(hash, ...names)
          .del(ofAccount(accountId))
          .exec();
      return names.length;
    },
    close: async () => undefined,
  };
}
