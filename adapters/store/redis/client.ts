/**
 * The Redis connection of a service, made for outages (docs/architecture.md#errors: a dependency
 * outage is a 503 within a bounded deadline; a request either commits or reports failure):
 * - no offline queue: while disconnected a command fails at once instead of waiting to run
 *   after the client has been answered;
 * - every command has a timeout (`commandTimeoutMs`, default 2 s);
 * - reconnects forever with a short backoff, logging each state change once;
 * - a failure that means "Redis is not there" (closed connection, timeout, not writable,
 *   loading, script deadline passed) rejects as `RedisUnavailable`; an error reply that is our
 *   own bug (wrong type, script error) stays what it is.
 * Writes that must not land after their caller gave up go through `redisScript(..., {deadline})`.
 *
 * @example
 *   const redis = openRedis('redis://127.0.0.1:6379', { log, name: 'gateway' });
 *   await redis.ping(); // RedisUnavailable while Redis is down
 */
import { Redis, ReplyError, type RedisOptions } from 'ioredis';
import { DependencyUnavailable } from '../../../kernel/errors.ts';
import type { Logger } from '../../../kernel/log.ts';

/** Redis did not answer in time, or is not connected. */
export class RedisUnavailable extends DependencyUnavailable {
  constructor(message: string, options?: { cause?: unknown }) {
    super('redis', message, options);
    this.name = 'RedisUnavailable';
  }
}

/** Error replies that mean "not available now" rather than "wrong command". */
const TRANSIENT_REPLY = /^(LOADING|BUSY|MASTERDOWN|TRYAGAIN|CLUSTERDOWN|READONLY|DEADLINE)\b/;

/** Whether `err` (from ioredis) means Redis is unavailable. */
export function isRedisOutage(err: unknown): boolean {
  if (err instanceof RedisUnavailable) return true;
  if (err instanceof ReplyError) return TRANSIENT_REPLY.test((err as Error).message);
  return err instanceof Error;
}

/** `err` as RedisUnavailable when it is an outage, else unchanged. */
export function asRedisError(err: unknown): unknown {
  if (err instanceof RedisUnavailable || !isRedisOutage(err)) return err;
  const text = err instanceof Error ? err.message : String(err);
  const reason = /deadline/i.test(text) ? 'answered after the request deadline; nothing was written' : text;
  return new RedisUnavailable(`redis is unavailable: ${reason}`, { cause: err });
}

const mapRejection = <T>(p: Promise<T>): Promise<T> => p.catch((err: unknown) => Promise.reject(asRedisError(err)));

/** Options of `openRedis`. */
export interface OpenRedisOptions {
  log: Logger;
  /** connection name (CLIENT SETNAME) and log field */
  name: string;
  /** per-command timeout [2000] */
  commandTimeoutMs?: number;
  /** extra ioredis options (tests) */
  redis?: RedisOptions;
}

/** A guarded client: the same ioredis API, rejections mapped to RedisUnavailable. */
export type GuardedRedis = Redis;

/**
 * Connects to `url` (lazily: the first command connects) and returns the guarded client. Its
 * promises reject with RedisUnavailable during an outage; `multi()`/`pipeline()` results too.
 */
export function openRedis(url: string, options: OpenRedisOptions): GuardedRedis {
  const log = options.log;
  const timeoutMs = options.commandTimeoutMs ?? 2_000;
  const client = new Redis(url, {
    connectionName: options.name,
    enableOfflineQueue: false,
    commandTimeout: timeoutMs,
    connectTimeout: 2_000,
    maxRetriesPerRequest: 0,
    // commands issued in the same event-loop turn leave in one write (one syscall, not one per command)
    enableAutoPipelining: true,
    retryStrategy: (attempt) => Math.min(100 * 2 ** Math.min(attempt, 4), 1_000),
    ...options.redis,
  });
  let down = false;
  // Commands sent before the first connection is made wait for it (bounded); after that an outage fails fast.
  let everReady = false;
  const firstReady = new Promise<void>((resolve) => client.once('ready', () => resolve()));
  firstReady.catch(() => undefined);
  const untilFirstReady = () =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new RedisUnavailable(`redis is unavailable: no connection within ${timeoutMs} ms`)), timeoutMs);
      firstReady.then(() => {
        clearTimeout(timer);
        resolve();
      }, reject);
    });
  client.on('error', (err: Error) => {
    if (!down) log.warn({ err: err.message, redis: redactUrl(url) }, 'redis connection lost; commands fail with 503 until it is back');
    down = true;
  });
  client.on('ready', () => {
    everReady = true;
    if (down) log.info({ redis: redactUrl(url) }, 'redis reachable again');
    down = false;
  });
  return new Proxy(client, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      if (prop === 'multi' || prop === 'pipeline') {
        return (...args: unknown[]) => {
          const batch = (value as (...a: unknown[]) => { exec: (...a: unknown[]) => Promise<unknown> }).apply(target, args);
          const exec = batch.exec.bind(batch);
          batch.exec = (...a: unknown[]) => mapRejection(exec(...a));
          return batch;
        };
      }
      return (...args: unknown[]) => {
        const out: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (!(out instanceof Promise)) return out;
        // every command once connected: nothing made per call but the mapping of its rejection
        if (everReady) return mapRejection(out);
        return mapRejection(
          out.catch((err: unknown) => {
            if (everReady || !(err instanceof Error) || !/isn't writeable/.test(err.message)) throw err;
            return untilFirstReady().then(() => (value as (...a: unknown[]) => unknown).apply(target, args));
          }),
        );
      };
    },
  });
}

/** Whether the client holds a ready connection now (health checks). */
export const redisReady = (redis: Redis): boolean => redis.status === 'ready';

/** The URL without its password, for logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}
