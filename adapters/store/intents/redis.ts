/**
 * Pending intents in one Redis hash (`<prefix>intents`: key -> intent JSON), shared by the
 * gateways of one deployment; a removal compares the signature first (a script), so it never
 * drops a later signing of the same key.
 */
import type { Redis } from 'ioredis';
import { intentOf, type IntentStore, type PendingIntent } from './port.ts';

const REMOVE_IF_SAME = `
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if raw and cjson.decode(raw).signature == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0`;

export function createRedisIntentStore(redis: Redis, options: { prefix: string }): IntentStore {
  const hash = `${options.prefix}intents`;
  return {
    put: async (intent) => {
      await redis.hset(hash, intent.key, JSON.stringify(intent));
    },
    remove: async (key, signature) => {
      await redis.eval(REMOVE_IF_SAME, 1, hash, key, signature);
    },
    list: async () =>
      Object.values(await redis.hgetall(hash))
        .map((raw) => {
          try {
            return intentOf(JSON.parse(raw));
          } catch {
            return null;
          }
        })
        .filter((i): i is PendingIntent => i !== null),
  };
}
