/**
 * Per-account event logs in Redis: each account's log is the gateway's Redis event log
 * (`adapters/store/event-log/redis.ts`: a counter and a stream trimmed to the capacity, appended in
 * one script) under `<prefix>:account-events:<accountId>:`, so numbering and history survive a
 * restart and are shared by exchange processes on one Redis. `appendAll` writes one commit's
 * events in one script call (one round trip, consecutive seqs).
 */
import type { Redis } from 'ioredis';
import type { EventLog, LoggedEvent, Sequenced } from '../event-log/port.ts';
import { createRedisEventLog, redisEventLogKeys } from '../event-log/redis.ts';
import { redisScript } from '../redis/script.ts';
import { DEFAULT_ACCOUNT_EVENT_CAPACITY, type AccountEventLogs } from './port.ts';

// KEYS: counter, stream; ARGV: capacity, then one event JSON each. The same layout as the event log's own append.
const APPEND_ALL = redisScript(`
local first = redis.call('INCRBY', KEYS[1], #ARGV - 1) - (#ARGV - 1) + 1
for i = 2, #ARGV do
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[1], (first + i - 2) .. '-0', 'e', ARGV[i])
end
return first
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
}

/** Creates the logs on `redis`. */
export function createRedisAccountEventLogs<E extends LoggedEvent>(redis: Redis, options: RedisAccountEventLogsOptions<E> = {}): AccountEventLogs<E> {
  const prefixOf = (accountId: string) => `${options.prefix ?? 'exchange'}:account-events:${accountId}:`;
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
    async appendAll(accountId, events) {
      if (events.length === 0) return [];
      const keys = redisEventLogKeys(prefixOf(accountId));
      const bodies = events.map((e) => {
        const { seq: _ignored, ...fields } = e as E & { seq?: unknown };
        return fields as E;
      });
      const capacity = options.capacity ?? DEFAULT_ACCOUNT_EVENT_CAPACITY;
      const first = Number(await APPEND_ALL.run(redis, [keys.counter, keys.stream], [capacity, ...bodies.map((b) => JSON.stringify(b))]));
      return bodies.map((b, i) => ({ ...b, seq: first + i }) as Sequenced<E>);
    },
    async delete(accountId) {
      logs.delete(accountId);
      const keys = redisEventLogKeys(prefixOf(accountId));
      await redis.del(keys.counter, keys.stream, keys.epoch);
    },
    async close() {
      logs.clear();
      if (options.owned) redis.disconnect();
    },
  };
}
