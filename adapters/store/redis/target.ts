/**
 * Where a service's Redis is (docs/operations.md#redis-with-sentinel, #redis-cluster): one server
 * by URL (`REDIS_URL`), the primary that a set of Sentinels names (`REDIS_SENTINELS` +
 * `REDIS_MASTER_NAME`), or a Redis Cluster named by some of its nodes (`REDIS_CLUSTER_NODES`,
 * its client in `./cluster.ts`). With Sentinels the client asks them for the primary on every
 * connect and follows `+switch-master`, so a failover is a short outage, not a reconfiguration.
 *
 * @example
 *   const target = redisTargetOf({ REDIS_SENTINELS: '127.0.0.1:26379,127.0.0.1:26380', REDIS_MASTER_NAME: 'main' });
 *   const redis = connectTarget(target!, { enableOfflineQueue: false });
 */
import * as v from 'valibot';
import { Redis, type RedisOptions } from 'ioredis';
import { backoffMs, type RetryPolicy } from '../../../kernel/backoff.ts';
import { ConfigError } from '../../../kernel/errors.ts';

/** delays between reconnection attempts to Redis, its Sentinels or its cluster: 200 ms doubling to 1 s, each between its half and itself (the clients of a deployment do not all come back in the same instant) */
export const REDIS_RECONNECT: RetryPolicy = { baseMs: 100, maxMs: 1_000, jitter: 'equal' };

/** One Sentinel's address. */
export interface SentinelAddress {
  host: string;
  port: number;
}

/** A Redis Cluster, named by some of its nodes (ioredis discovers the rest). */
export interface RedisClusterTarget {
  kind: 'cluster';
  cluster: readonly SentinelAddress[];
}

/** A Redis to connect to. */
export type RedisTarget = { kind: 'url'; url: string } | { kind: 'sentinel'; sentinels: SentinelAddress[]; name: string } | RedisClusterTarget;

/** Whether `target` is a cluster. */
export const isClusterTarget = (target: string | RedisTarget): target is RedisClusterTarget => typeof target !== 'string' && target.kind === 'cluster';

const HOST_PORT = /^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:]+\]):(\d{1,5})$/;

/** `host:port,host:port,...` (Sentinels, or seed nodes of a cluster) as addresses; throws an Error saying which part is wrong. */
export function parseSentinels(text: string): SentinelAddress[] {
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (parts.length === 0) throw new Error('must name at least one server as host:port');
  return parts.map((part) => {
    const m = HOST_PORT.exec(part);
    const port = Number(m?.[2]);
    if (!m || port < 1 || port > 65_535) throw new Error(`${JSON.stringify(part)} is not host:port (e.g. 127.0.0.1:26379)`);
    return { host: (m[1] as string).replace(/^\[|\]$/g, ''), port };
  });
}

/** A valibot check of a `host:port,...` list of `what` (an env field, named in the message); absent when unset. */
export const hostPortList = (what: string) =>
  v.optional(
    v.pipe(
      v.string(),
      v.rawCheck(({ dataset, addIssue }) => {
        if (!dataset.typed) return;
        try {
          parseSentinels(dataset.value);
        } catch (err) {
          addIssue({ message: `must be host:port of ${what}, separated by commas: ${(err as Error).message}` });
        }
      }),
    ),
  );

/** A valibot check of a Sentinel list (an env field); absent when unset. */
export const SentinelList = hostPortList('each sentinel');

/** A master name as Sentinel knows it; absent when unset. */
export const MasterName = v.optional(
  v.pipe(v.string(), v.regex(/^[A-Za-z0-9._-]+$/, 'must be the master name the sentinels monitor (letters, digits, . _ -)')),
);

/** The variables a target is read from (already checked one by one). */
export interface RedisTargetEnv {
  REDIS_URL?: string | undefined;
  REDIS_SENTINELS?: string | undefined;
  REDIS_MASTER_NAME?: string | undefined;
  REDIS_CLUSTER_NODES?: string | undefined;
}

/** The target the variables name, null when neither is set; throws ConfigError on a combination that cannot be used. */
export function redisTargetOf(env: RedisTargetEnv): RedisTarget | null {
  if (env.REDIS_CLUSTER_NODES) {
    if (env.REDIS_URL || env.REDIS_SENTINELS)
      throw new ConfigError('REDIS_CLUSTER_NODES', 'set one of REDIS_URL (one server), REDIS_SENTINELS or REDIS_CLUSTER_NODES, not both');
    return { kind: 'cluster', cluster: parseSentinels(env.REDIS_CLUSTER_NODES) };
  }
  if (env.REDIS_SENTINELS) {
    if (env.REDIS_URL)
      throw new ConfigError('REDIS_SENTINELS', 'set either REDIS_URL (one server) or REDIS_SENTINELS (a primary named by sentinels), not both');
    if (!env.REDIS_MASTER_NAME) throw new ConfigError('REDIS_MASTER_NAME', 'must be set with REDIS_SENTINELS (the name the sentinels monitor)');
    return { kind: 'sentinel', sentinels: parseSentinels(env.REDIS_SENTINELS), name: env.REDIS_MASTER_NAME };
  }
  if (env.REDIS_MASTER_NAME) throw new ConfigError('REDIS_MASTER_NAME', 'only means something with REDIS_SENTINELS');
  return env.REDIS_URL ? { kind: 'url', url: env.REDIS_URL } : null;
}

/** The target as a string or a target. */
export const asTarget = (target: string | RedisTarget): RedisTarget => (typeof target === 'string' ? { kind: 'url', url: target } : target);

/** The target for logs, without a password. */
export function targetText(target: string | RedisTarget): string {
  const t = asTarget(target);
  if (t.kind === 'cluster') return `cluster ${t.cluster.map((n) => `${n.host}:${n.port}`).join(',')}`;
  if (t.kind === 'sentinel') return `sentinel master ${t.name} via ${t.sentinels.map((s) => `${s.host}:${s.port}`).join(',')}`;
  try {
    const u = new URL(t.url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return t.url;
  }
}

/**
 * An ioredis client for `target` with `options`. With Sentinels it connects to the primary only
 * (never a replica), watches the sentinels for `+switch-master`, and a `READONLY` reply (a demoted
 * primary still answering) makes it reconnect, asking the sentinels again.
 */
export function connectTarget(target: string | RedisTarget, options: RedisOptions): Redis {
  const t = asTarget(target);
  if (t.kind === 'url') return new Redis(t.url, options);
  if (t.kind === 'cluster') throw new Error('a cluster is opened by ./cluster.ts newClusterClient');
  const client = new Redis({
    failoverDetector: true,
    sentinelMaxConnections: 3,
    sentinelCommandTimeout: 1_000,
    sentinelRetryStrategy: (attempt: number) => backoffMs(attempt + 1, REDIS_RECONNECT),
    // 1: reconnect (through the sentinels), never resend: the caller was already told the write failed
    reconnectOnError: (err: Error) => (/^READONLY\b/.test(err.message) ? 1 : false),
    ...options,
    sentinels: t.sentinels,
    name: t.name,
    role: 'master',
  });
  return reopenedUnlessClosed(client);
}

/**
 * A Sentinel client can end for good without being closed: its failover detector (or a READONLY
 * reconnect) drops the connector while a reconnection is asking the Sentinels, and ioredis then
 * answers "Connection is closed." to every command from then on. Such a client is connected again
 * (after a reconnect delay); one closed by its owner (`quit`, `disconnect`) also closes its
 * connections to the Sentinels, or they keep the process alive.
 */
export function reopenedUnlessClosed(client: Redis): Redis {
  let closedByOwner = false;
  const disconnect = client.disconnect.bind(client);
  const quit = client.quit.bind(client);
  client.disconnect = (reconnect = false) => {
    if (!reconnect) closedByOwner = true;
    disconnect(reconnect);
  };
  client.quit = ((...args: Parameters<Redis['quit']>) => {
    closedByOwner = true;
    return quit(...args);
  }) as Redis['quit'];
  let ends = 0;
  client.on('end', () => {
    if (closedByOwner) return disconnect();
    const timer = setTimeout(
      () => {
        if (!closedByOwner && client.status === 'end') client.connect().catch(() => undefined); // its failure is a 'close' like any other
      },
      backoffMs(++ends, REDIS_RECONNECT),
    );
    timer.unref();
  });
  client.on('ready', () => (ends = 0));
  return client;
}
