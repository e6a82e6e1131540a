/**
 * Commits that wait for a replica (docs/operations.md#redis-with-sentinel,
 * docs/decisions.md#a-commit-waits-for-a-replica): Redis replicates asynchronously, so a write
 * the primary acknowledged may be lost when a replica is promoted. With `minReplicas` > 0 a store
 * sends `WAIT minReplicas timeoutMs` on the connection that wrote, right after the write; fewer
 * acknowledgements in time is `RedisNotDurable`, which every edge answers as its dependency outage
 * (503): the write happened on the primary but is not confirmed to survive a failover.
 * `WAIT` narrows the window, it does not close it: a write a replica holds can still be lost if
 * that replica is not the one promoted.
 *
 * @example
 *   await COMMIT.run(redis, keys, args);
 *   await awaitReplicas(redis, { minReplicas: 1, timeoutMs: 500 }); // RedisNotDurable when no replica took it in time
 */
import { Cluster } from 'ioredis';
import type { RedisClient } from './client.ts';
import { RedisUnavailable } from './client.ts';

/** How many replicas must hold a write before it is acknowledged; 0: none (no WAIT). */
export interface Durability {
  minReplicas: number;
  /** how long WAIT blocks for them, ms */
  timeoutMs: number;
}

/** No waiting: what a store does without configuration. */
export const NO_REPLICA_WAIT: Durability = { minReplicas: 0, timeoutMs: 0 };

/** The write reached the primary, but not enough replicas acknowledged it in time. */
export class RedisNotDurable extends RedisUnavailable {
  constructor(
    readonly acknowledged: number,
    readonly required: number,
    timeoutMs: number,
  ) {
    super(
      `the write is not confirmed durable: ${acknowledged} of ${required} replica(s) acknowledged it within ${timeoutMs} ms; it may be lost in a failover, retry with the same idempotency key`,
    );
    this.name = 'RedisNotDurable';
  }
}

/** Waits until `d.minReplicas` replicas hold every write this connection made; RedisNotDurable otherwise. */
export async function awaitReplicas(redis: RedisClient, d: Durability): Promise<void> {
  if (d.minReplicas <= 0) return;
  // WAIT answers for the connection it is sent on: a cluster client has one per master (refused at start: bin/redis-env.ts)
  if (redis instanceof Cluster) throw new Error('REDIS_MIN_REPLICAS is not supported on a Redis Cluster');
  const acknowledged = Number(await redis.wait(d.minReplicas, d.timeoutMs));
  if (acknowledged < d.minReplicas) throw new RedisNotDurable(acknowledged, d.minReplicas, d.timeoutMs);
}
