/**
 * Redis Cluster as a target of `openRedis` (docs/operations.md#redis-cluster): the seed list
 * `REDIS_CLUSTER_NODES=host:port,host:port,...` (validated once at boot), the ioredis `Cluster`
 * made with the same outage rules as a single server (no offline queue, command timeouts,
 * failures mapped to RedisUnavailable by `openRedis`; MOVED, ASK, TRYAGAIN and CLUSTERDOWN are
 * followed by ioredis), and the key prefixes that keep every multi-key script in one hash slot.
 *
 * @example
 *   const target = clusterTarget('127.0.0.1:7001,127.0.0.1:7002');
 *   const redis = openRedis(target, { log, name: 'gateway' }); // a guarded Cluster
 *   gatewayKeyPrefix(target); // '{gw}:'
 */
import { Cluster, type ClusterOptions, type Redis } from 'ioredis';
import { backoffMs } from '../../../kernel/backoff.ts';
import { hostPortList, isClusterTarget, parseSentinels, REDIS_RECONNECT, reopenedUnlessClosed, type RedisClusterTarget, type RedisTarget } from './target.ts';

/** `host:port,...` as addresses; throws on a malformed entry. */
export const parseClusterNodes = parseSentinels;

/** The env field `REDIS_CLUSTER_NODES`: absent, or a comma-separated list of `host:port`. */
export const ClusterNodesText = hostPortList('cluster nodes (such as 10.0.0.1:7000,10.0.0.2:7000)');

/** The target for a validated `REDIS_CLUSTER_NODES` value. */
export const clusterTarget = (nodes: string): RedisClusterTarget => ({ kind: 'cluster', cluster: parseClusterNodes(nodes) });

/**
 * The gateway's key prefix (docs/operations.md#where-state-lives-in-redis): `gw:` on one server
 * (the names existing deployments hold), `{gw}:` on a cluster, where the braces put every key of
 * the deployment in one hash slot, so a bet's commit (snapshot, live set, events, history) stays one
 * script (docs/decisions.md#redis-cluster-one-hash-tag-per-gateway-deployment).
 */
export const gatewayKeyPrefix = (target: string | RedisTarget): string => (isClusterTarget(target) ? '{gw}:' : 'gw:');

/**
 * The API key store's prefix: `exchange` on one server, `{exchange}` on a cluster (the keys hash
 * and each account's index are written in one MULTI).
 */
export const apiKeyPrefix = (target: string | RedisTarget): string => (isClusterTarget(target) ? '{exchange}' : 'exchange');

/** The options of a cluster client that behaves like `openRedis`'s single-server client. */
export interface ClusterClientSettings {
  name: string;
  commandTimeoutMs: number;
  cluster?: ClusterOptions;
}

/** A `Cluster` on `target` that fails fast while the cluster is not reachable (guarded by `openRedis`). */
export function newClusterClient(target: RedisClusterTarget, settings: ClusterClientSettings): Cluster {
  return new Cluster(
    target.cluster.map((n) => ({ host: n.host, port: n.port })),
    {
      enableOfflineQueue: false,
      enableAutoPipelining: true,
      clusterRetryStrategy: (attempt) => backoffMs(attempt + 1, REDIS_RECONNECT),
      slotsRefreshTimeout: 2_000,
      redisOptions: {
        connectionName: settings.name,
        commandTimeout: settings.commandTimeoutMs,
        connectTimeout: 2_000,
        maxRetriesPerRequest: 0,
      },
      ...settings.cluster,
    },
  );
}

/**
 * A connection of its own for SUBSCRIBE that waits for Redis instead of failing fast
 * (`runtime/gateway/settlement/retry-requests.ts`). On a cluster a PUBLISH reaches the subscribers
 * of every node.
 */
export function subscriberOf(client: Redis | Cluster): Redis | Cluster {
  if (client instanceof Cluster) {
    return client.duplicate([], {
      enableOfflineQueue: true,
      enableAutoPipelining: false,
      redisOptions: { ...client.options.redisOptions, commandTimeout: undefined, maxRetriesPerRequest: null },
    });
  }
  const subscriber = client.duplicate({ enableOfflineQueue: true, commandTimeout: undefined, maxRetriesPerRequest: null, enableAutoPipelining: false });
  // a copy of a Sentinel client meets the same failover race as the client (./target.ts)
  return client.options.sentinels ? reopenedUnlessClosed(subscriber) : subscriber;
}

/**
 * How many clients are subscribed to `channel`: on a cluster the sum over its nodes (a PUBLISH's
 * own answer counts only the node it was sent to), on one server the PUBLISH answer itself.
 */
export async function publishToAll(client: Redis | Cluster, channel: string, message: string): Promise<number> {
  const local = await client.publish(channel, message);
  if (!(client instanceof Cluster)) return local;
  const counts = await Promise.all(
    client.nodes('all').map(async (node) => {
      const reply = (await node.pubsub('NUMSUB', channel)) as unknown[];
      return Number(reply[1] ?? 0);
    }),
  );
  return counts.reduce((a, b) => a + b, 0);
}
