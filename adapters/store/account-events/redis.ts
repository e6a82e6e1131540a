/**
 * Per-account event logs in Redis: each account's log is the gateway's Redis event log
 * (`adapters/store/event-log/redis.ts`: a counter and a stream trimmed to the capacity, appended in
 * one script) under `<prefix>:account-events:<accountId>:`, so numbering and history survive a
 * restart and are shared by exchange processes on one Redis.
 */
import type { Redis } from 'ioredis';
import type { EventLog, LoggedEvent } from '../event-log/port.ts';
import { createRedisEventLog, redisEventLogKeys } from '../event-log/redis.ts';
import { DEFAULT_ACCOUNT_EVENT_CAPACITY, type AccountEventLogs } from './port.ts';

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
