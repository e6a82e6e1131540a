/**
 * The Redis variables the gateway, the exchange and the ops CLI share
 * (docs/operations.md#redis-with-sentinel): one server by `REDIS_URL`, or a primary named by
 * Sentinels, and how many replicas a commit waits for.
 */
import { ConfigError } from '../kernel/errors.ts';
import { MasterName, SentinelList, redisTargetOf, type RedisTarget, type RedisTargetEnv } from '../adapters/store/redis/target.ts';
import type { Durability } from '../adapters/store/redis/durability.ts';
import { describe, integer, redisClusterNodes } from '../runtime/env.ts';

/** The Sentinel and replica-wait variables (REDIS_URL stays with each service: its meaning differs). */
export const redisEnvFields = {
  REDIS_SENTINELS: describe('instead of REDIS_URL: the Redis Sentinels, host:port separated by commas (the client follows failovers)', SentinelList),
  REDIS_MASTER_NAME: describe('with REDIS_SENTINELS: the master name they monitor', MasterName),
  REDIS_CLUSTER_NODES: redisClusterNodes(),
  REDIS_MIN_REPLICAS: describe('a commit is acknowledged only once this many replicas hold it (WAIT); else 503 (0: no wait)', integer(0)),
  REDIS_WAIT_TIMEOUT_MS: describe('with REDIS_MIN_REPLICAS: how long a commit waits for the replicas, ms', integer(500, 1)),
};

/** What a service connects to and how long its commits wait. */
export interface RedisConfig {
  /** null: no Redis (the files in DATA_DIR) */
  target: RedisTarget | null;
  durability: Durability;
}

/** The Redis configuration of checked variables; throws ConfigError on a combination that cannot be used. */
export function redisConfigOf(env: RedisTargetEnv & { REDIS_MIN_REPLICAS: number; REDIS_WAIT_TIMEOUT_MS: number }): RedisConfig {
  const target = redisTargetOf(env);
  if (!target && env.REDIS_MIN_REPLICAS > 0) throw new ConfigError('REDIS_MIN_REPLICAS', 'needs REDIS_URL, REDIS_SENTINELS or REDIS_CLUSTER_NODES');
  if (target?.kind === 'cluster' && env.REDIS_MIN_REPLICAS > 0)
    throw new ConfigError('REDIS_MIN_REPLICAS', 'is not supported with REDIS_CLUSTER_NODES (WAIT answers for one master): use 0');
  return { target, durability: { minReplicas: env.REDIS_MIN_REPLICAS, timeoutMs: env.REDIS_WAIT_TIMEOUT_MS } };
}
