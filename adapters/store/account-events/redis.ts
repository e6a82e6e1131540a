/**
 * Per-account event logs in Redis: each account's log is the gateway's Redis event log
 * (`adapters/store/event-log/redis.ts`: a counter and a stream trimmed to the capacity, appended in
 * one script) under `<prefix>:account-events:<accountId>:`, so numbering and history survive a
 * restart and are shared by exchange processes on one Redis. `appendMany` writes the events
 * of many accounts in one script call (one round trip, consecutive seqs per account).
 * On a Redis Cluster (`cluster: true`, docs/operations.md#redis-cluster) an account's keys carry
 * its id as hash tag (`<prefix>:account-events:{<accountId>}:`), so each account's log may live
 * on another node, and `appendMany` runs the same script once per account, all sent at once.
 * The enrolled set and its version are written by commands of their own, never beside a log.
 */
import type { RedisClient } from '../redis/client.ts';
import type { EventLog, LoggedEvent, Sequenced } from '../event-log/port.ts';
import { createRedisEventLog, redisEventLogKeys } from '../event-log/redis.ts';
import { redisScript } from '../redis/script.ts';
import { DEFAULT_ACCOUNT_EVENT_CAPACITY, type AccountEventLogs } from './port.ts';

// KEYS: counter and stream of each account; ARGV: capacity, the event count of each account, then
// every event JSON in order. The same layout as the event log's own append; answers each account's first seq.
const APPEND_MANY = redisScript(`
local groups = #KEYS / 2
local at = 2 + groups
local out = {}
for g = 1, groups do
  local n = tonumber(ARGV[1 + g])
  local first = redis.call('INCRBY', KEYS[2 * g - 1], n) - n + 1
  for i = 0, n - 1 do
    redis.call('XADD', KEYS[2 * g], 'MAXLEN', '~', ARGV[1], (first + i) .. '-0', 'e', ARGV[at + i])
  end
  at = at + n
  out[g] = first
end
return out
`);

/** Options of the Redis logs. */
export interface RedisAccountEventLogsOptions<E extends LoggedEvent> {
  /** key prefix [exchange] */
  prefix?: string;
  /** events kept per account (approximately: Redis trims whole stream nodes) */
  capacity?: number;
  /** validates a record read back */
  parse?: (raw: unknown) => E;
  /** closes the connection when the logs close (the caller's connection otherwise) */
  owned?: boolean;
  /** on a Redis Cluster: each account's keys in its own hash slot (a script touches one slot only) */
  cluster?: boolean;
}

/** Creates the logs on `redis`. */
export function createRedisAccountEventLogs<E extends LoggedEvent>(redis: RedisClient, options: RedisAccountEventLogsOptions<E> = {}): AccountEventLogs<E> {
  const prefixOf = (accountId: string) => `${options.prefix ?? 'exchange'}:account-events:${options.cluster ? `{${accountId}}` : accountId}:`;
  const enrolledKey = `${options.prefix ?? 'exchange'}:account-events-enrolled`;
  const versionKey = `${enrolledKey}:version`;
  const logs = new Map<string, EventLog<E>>();
  return {
    kind: 'redis',
    of(accountId) {
      let log = logs.get(accountId);
      if (!log) {
        log = createRedisEventLog<E>(redis, {
          prefix: prefixOf(accountId),
          capacity: options.capacity ?? DEFAULT_ACCOUNT_EVENT_CAPACITY,
          ...(options.parse ? { parse: options.parse } : {}),
        });
        // a handle per account seen; bounded by the accounts this process serves
        logs.set(accountId, log);
      }
      return log;
    },
    async appendMany(groups) {
      const filled = groups.filter((g) => g.events.length > 0);
      if (filled.length === 0) return groups.map(() => []);
      const bodies = filled.map((g) =>
        g.events.map((e) => {
          const { seq: _ignored, ...fields } = e as E & { seq?: unknown };
          return fields as E;
        }),
      );
      const append = async (at: readonly number[]): Promise<number[]> => {
        const keys = at.flatMap((i) => {
          const k = redisEventLogKeys(prefixOf(filled[i]?.accountId ?? ''));
          return [k.counter, k.stream];
        });
        const mine = at.map((i) => bodies[i] ?? []);
        const args = [options.capacity ?? DEFAULT_ACCOUNT_EVENT_CAPACITY, ...mine.map((b) => b.length), ...mine.flat().map((b) => JSON.stringify(b))];
        return (await APPEND_MANY.run(redis, keys, args)) as number[];
      };
      const all = filled.map((_, i) => i);
      // on a cluster the accounts' keys lie in different slots: one script per account
      const firsts = options.cluster ? (await Promise.all(all.map((i) => append([i])))).flat() : await append(all);
      const sequenced = new Map(filled.map((g, i) => [g, (bodies[i] ?? []).map((b, j) => ({ ...b, seq: Number(firsts[i]) + j }) as Sequenced<E>)]));
      return groups.map((g) => sequenced.get(g) ?? []);
    },
    async enroll(accountId) {
      if ((await redis.sadd(enrolledKey, accountId)) > 0) await redis.incr(versionKey);
    },
    async enrolled() {
      const [version, accounts] = await Promise.all([redis.get(versionKey), redis.smembers(enrolledKey)]);
      return { version: Number(version ?? 0), accounts };
    },
    async enrolledVersion() {
      return Number((await redis.get(versionKey)) ?? 0);
    },
    async delete(accountId) {
      logs.delete(accountId);
      const keys = redisEventLogKeys(prefixOf(accountId));
      await redis.del(keys.counter, keys.stream, keys.epoch);
      await redis.srem(enrolledKey, accountId);
    },
    async close() {
      logs.clear();
      if (options.owned) redis.disconnect();
    },
  };
}
