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
 * The target is a URL (one server) or a cluster (`./cluster.ts`, docs/operations.md#redis-cluster):
 * the same rules hold for both, and the client is typed as either (`RedisClient`).
 *
 * @example
 *   const redis = openRedis('redis://127.0.0.1:6379', { log, name: 'gateway' });
 *   await redis.ping(); // RedisUnavailable while Redis is down
 */
import { ReplyError, type Cluster, type ClusterOptions, type Redis, type RedisOptions } from 'ioredis';
import { newClusterClient } from './cluster.ts';
import { DependencyUnavailable } from '../../../kernel/errors.ts';
import type { Logger } from '../../../kernel/log.ts';
import { backoffMs } from '../../../kernel/backoff.ts';
import { connectTarget, isClusterTarget, REDIS_RECONNECT, targetText, type RedisTarget } from './target.ts';

/** Redis did not answer in time, or is not connected. */
export class RedisUnavailable extends DependencyUnavailable {
  constructor(message: string, options?: { cause?: unknown }) {
    super('redis', message, options);
    this.name = 'RedisUnavailable';
  }
}

/** Error replies that mean "not available now" rather than "wrong command". */
const TRANSIENT_REPLY = /^(LOADING|BUSY|MASTERDOWN|TRYAGAIN|CLUSTERDOWN|READONLY|DEADLINE)\b/;

/** A cluster client's refusal of a command or batch whose keys lie in several hash slots: our bug, not an outage. */
const CROSS_SLOT = /CROSSSLOT|should belong to the same slot/;

/** Whether `err` (from ioredis) means Redis is unavailable. */
export function isRedisOutage(err: unknown): boolean {
  if (err instanceof RedisUnavailable) return true;
  if (err instanceof ReplyError) return TRANSIENT_REPLY.test((err as Error).message);
  return err instanceof Error && !CROSS_SLOT.test(err.message);
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
  /** told when the connection is ready (true) and when it closes (false): `runtime/dependency-links.ts` */
  watch?: (up: boolean) => void;
  /** extra ioredis cluster options (tests) */
  cluster?: ClusterOptions;
}

/** A client of one server or of a cluster: the commands, MULTI and pipelines both offer. */
export type RedisClient = Redis | Cluster;

/** A guarded client: the same ioredis API, rejections mapped to RedisUnavailable. */
export type GuardedRedis = RedisClient;

/** Cluster commands refused before the cluster is first ready ("Cluster isn't ready and enableOfflineQueue options is false"). */
const NOT_CONNECTED_YET = /isn't writeable|isn't ready/;

/**
 * Connects to `target` (a URL, a primary named by Sentinels, or a cluster: `./target.ts`; lazily:
 * the first command connects) and returns the guarded client. Its promises reject with
 * RedisUnavailable during an outage; `multi()`/`pipeline()` results too.
 */
export function openRedis(target: string | RedisTarget, options: OpenRedisOptions): GuardedRedis {
  const log = options.log;
  const timeoutMs = options.commandTimeoutMs ?? 2_000;
  const url = targetText(target);
  const client = isClusterTarget(target)
    ? newClusterClient(target, { name: options.name, commandTimeoutMs: timeoutMs, ...(options.cluster ? { cluster: options.cluster } : {}) })
    : singleServer(target, options, timeoutMs);
  return guard(client, url, log, timeoutMs, options.watch);
}

/** The client of one server or of the primary the Sentinels name. */
function singleServer(target: string | RedisTarget, options: OpenRedisOptions, timeoutMs: number): Redis {
  return connectTarget(target, {
    connectionName: options.name,
    enableOfflineQueue: false,
    commandTimeout: timeoutMs,
    connectTimeout: 2_000,
    maxRetriesPerRequest: 0,
    // commands issued in the same event-loop turn leave in one write (one syscall, not one per command)
    enableAutoPipelining: true,
    retryStrategy: (attempt) => backoffMs(attempt + 1, REDIS_RECONNECT),
    ...options.redis,
  });
}

/**
 * Wraps `client` so that its promises reject with RedisUnavailable during an outage, and commands
 * sent before the first connection wait for it (bounded).
 */
function guard(client: RedisClient, url: string, log: Logger, timeoutMs: number, watch?: (up: boolean) => void): GuardedRedis {
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
  const lost = (err: Error) => {
    if (!down) log.warn({ err: err.message, redis: url }, 'redis connection lost; commands fail with 503 until it is back');
    down = true;
  };
  client.on('error', lost);
  client.on('node error', lost); // a cluster node (the cluster goes on with the others)
  client.on('close', () => watch?.(false));
  client.on('ready', () => {
    watch?.(true);
    everReady = true;
    if (down) log.info({ redis: url }, 'redis reachable again');
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
            if (everReady || !(err instanceof Error) || !NOT_CONNECTED_YET.test(err.message)) throw err;
            return untilFirstReady().then(() => (value as (...a: unknown[]) => unknown).apply(target, args));
          }),
        );
      };
    },
  });
}
