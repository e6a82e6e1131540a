/**
 * Pending intents in one Redis hash (`<prefix>intents`: key -> intent JSON), shared by the
 * gateways of one deployment; a removal compares the signature first (a script), so it never
 * drops a later signing of the same key.
 */
import type { RedisClient } from '../redis/client.ts';
import { ABANDONED_AFTER_MS, intentOf, type IntentStore, type PendingIntent } from './port.ts';

const REMOVE_IF_SAME = `
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if raw and cjson.decode(raw).signature == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0`;

// mayRecord (port.ts) in one step: the key is free, held by the same engine, or held by a record that can no longer land (ARGV[5]: the block height, -1 unknown)
const PUT_UNLESS_HELD = `
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if raw then
  local held = cjson.decode(raw)
  local same = type(held.owner) == 'string' and held.owner == ARGV[3]
  local dead = tonumber(held.since) < tonumber(ARGV[4]) or (tonumber(ARGV[5]) >= 0 and tonumber(held.lastValidBlockHeight) < tonumber(ARGV[5]))
  if not same and not dead then return 0 end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1`;

export function createRedisIntentStore(redis: RedisClient, options: { prefix: string }): IntentStore {
  const hash = `${options.prefix}intents`;
  return {
    put: async (intent, heightNow) =>
      (await redis.eval(PUT_UNLESS_HELD, 1, hash, intent.key, JSON.stringify(intent), intent.owner ?? '', Date.now() - ABANDONED_AFTER_MS, heightNow ?? -1)) ===
      1,
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
