/**
 * Pending intents in one Redis hash (`<prefix>intents`: key -> intent JSON), shared by the
 * gateways of one deployment. The records of one event-loop turn go in one script call
 * (`kernel/turn-batch.ts`), and so do the removals: a burst of placements costs a round trip per
 * turn, not two per placement. A record is written only if Redis runs it before its deadline
 * (docs/architecture.md#errors): a write queued behind a stalled server or a failover, that
 * reaches Redis after its placement gave up (and sent nothing), writes nothing. A removal compares
 * the signature first, so it never drops a later signing of the same key.
 */
import type { RedisClient } from '../redis/client.ts';
import { WRITE_BUDGET_MS, redisScript, writeDeadline } from '../redis/script.ts';
import { TurnBatch } from '../../../kernel/turn-batch.ts';
import { ABANDONED_AFTER_MS, intentOf, type IntentStore, type PendingIntent } from './port.ts';

// pairs of ARGV: key, signature
const REMOVE_IF_SAME = redisScript(`
local n = 0
for i = 1, #ARGV, 2 do
  local raw = redis.call('HGET', KEYS[1], ARGV[i])
  if raw and cjson.decode(raw).signature == ARGV[i + 1] then n = n + redis.call('HDEL', KEYS[1], ARGV[i]) end
end
return n`);

// mayRecord (port.ts) for each intent in one step: the key is free, held by the same engine, or held
// by a record that can no longer land. ARGV[1]: records older than this are abandoned; then groups
// of four: key, intent JSON, owner, the block height (-1 unknown); the deadline last.
const PUT_UNLESS_HELD = redisScript(
  `
local out = {}
local groups = (#ARGV - 2) / 4
for g = 0, groups - 1 do
  local at = 2 + g * 4
  local key, owner, height = ARGV[at], ARGV[at + 2], tonumber(ARGV[at + 3])
  local raw = redis.call('HGET', KEYS[1], key)
  local free = 1
  if raw then
    local held = cjson.decode(raw)
    local same = type(held.owner) == 'string' and held.owner == owner
    local dead = tonumber(held.since) < tonumber(ARGV[1]) or (height >= 0 and tonumber(held.lastValidBlockHeight) < height)
    if not same and not dead then free = 0 end
  end
  if free == 1 then redis.call('HSET', KEYS[1], key, ARGV[at + 1]) end
  out[g + 1] = free
end
return out`,
  { deadline: true },
);

interface Put {
  intent: PendingIntent;
  heightNow: number | undefined;
  deadline: number;
}

export function createRedisIntentStore(redis: RedisClient, options: { prefix: string; writeBudgetMs?: number }): IntentStore {
  const hash = `${options.prefix}intents`;
  const puts = new TurnBatch(async (batch: Put[]) => {
    const args: Array<string | number> = [Date.now() - ABANDONED_AFTER_MS];
    for (const { intent, heightNow } of batch) args.push(intent.key, JSON.stringify(intent), intent.owner ?? '', heightNow ?? -1);
    // the batch is written only if every record of it still may be: by the earliest deadline
    const deadline = Math.min(...batch.map((p) => p.deadline));
    const out = (await PUT_UNLESS_HELD.run(redis, [hash], args, deadline)) as number[];
    return out.map((free) => free === 1);
  });
  const removals = new TurnBatch(async (batch: Array<{ key: string; signature: string }>) => {
    await REMOVE_IF_SAME.run(
      redis,
      [hash],
      batch.flatMap((r) => [r.key, r.signature]),
    );
    return batch.map(() => undefined);
  });
  return {
    put: (intent, heightNow) => puts.add({ intent, heightNow, deadline: writeDeadline(options.writeBudgetMs ?? WRITE_BUDGET_MS) }),
    remove: (key, signature) => removals.add({ key, signature }),
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
