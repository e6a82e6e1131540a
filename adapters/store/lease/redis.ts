/**
 * A leader lease in Redis (docs/architecture.md#the-leader: a lease with a fencing token): the key
 * holds `<node>:<fence>` with a TTL, taken with `SET key value NX PX ttl`, kept alive by a
 * compare-and-extend script and given up by a compare-and-delete script, so a node can only
 * extend or drop a lease it still holds. Every new holder takes the next value of a counter: the
 * fence, which only grows, so a write stamped with an older fence is known to be stale.
 *
 * @example
 *   const lease = createRedisLease(redis, { key: 'gw:leader', node: 'gw-1', ttlMs: 5_000 });
 *   const fence = await lease.acquire(); // a number when held, null when another node holds it
 *   await lease.renew();                 // false once it is lost
 *   await lease.release();
 */
import type { RedisClient } from '../redis/client.ts';
import { awaitReplicas, NO_REPLICA_WAIT, type Durability } from '../redis/durability.ts';
import { redisScript } from '../redis/script.ts';
import type { FenceRecord, LeaderLease } from './port.ts';

// KEYS: lease, fence counter. ARGV: node, ttl ms. Returns the fence held by `node` (new or its own), or 0.
const ACQUIRE = redisScript(`
local cur = redis.call('GET', KEYS[1])
if cur then
  local node, fence = string.match(cur, '^(.*):(%d+)$')
  if node == ARGV[1] then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return tonumber(fence)
  end
  return 0
end
local fence = redis.call('INCR', KEYS[2])
if redis.call('SET', KEYS[1], ARGV[1] .. ':' .. fence, 'NX', 'PX', ARGV[2]) then return fence end
return 0
`);

// KEYS: lease. ARGV: value, ttl ms. Extends only the holder's own lease.
const RENEW = redisScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`);

// KEYS: lease. ARGV: value. Deletes only the holder's own lease.
const RELEASE = redisScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);

// KEYS: highest fence used. ARGV: fence. Raises the record to the fence; 1 unless a higher fence is recorded (0).
const USE_FENCE = redisScript(`
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
local f = tonumber(ARGV[1])
if cur > f then return 0 end
if cur < f then redis.call('SET', KEYS[1], ARGV[1]) end
return 1
`);

/** Which lease and who asks for it. */
export interface RedisLeaseOptions {
  /** the lease key; the fence counter is `<key>:fence`, the highest fence used `<key>:fence-used` */
  key: string;
  /** this node's id (must not contain a newline) */
  node: string;
  ttlMs: number;
  /** replicas a take or renewal waits for, so a failover keeps the fence (docs/operations.md#redis-with-sentinel) [none] */
  durability?: Durability;
}

/** One node's handle on a lease. */
export class RedisLease implements LeaderLease {
  private fence: number | null = null;

  constructor(
    private readonly redis: RedisClient,
    readonly options: RedisLeaseOptions,
  ) {}

  private value(fence: number): string {
    return `${this.options.node}:${fence}`;
  }

  /** Takes the lease when it is free (or already ours); the fence when held, null otherwise. */
  async acquire(): Promise<number | null> {
    const out = Number(await ACQUIRE.run(this.redis, [this.options.key, `${this.options.key}:fence`], [this.options.node, this.options.ttlMs]));
    this.fence = null;
    if (out <= 0) return null;
    // not led on until a replica holds the fence: a promoted replica must not hand it out again
    await awaitReplicas(this.redis, this.options.durability ?? NO_REPLICA_WAIT);
    this.fence = out;
    return out;
  }

  /** Extends the lease by its TTL; false when it is no longer ours. */
  async renew(): Promise<boolean> {
    if (this.fence === null) return false;
    const ok = Number(await RENEW.run(this.redis, [this.options.key], [this.value(this.fence), this.options.ttlMs])) === 1;
    if (!ok) this.fence = null;
    else await awaitReplicas(this.redis, this.options.durability ?? NO_REPLICA_WAIT);
    return ok;
  }

  /** Gives the lease up when it is ours (shutdown), so another node takes over at once. */
  async release(): Promise<void> {
    if (this.fence === null) return;
    const value = this.value(this.fence);
    this.fence = null;
    await RELEASE.run(this.redis, [this.options.key], [value]);
  }

  /** Who holds the lease now (`<node>:<fence>`), null when nobody does. */
  async holder(): Promise<string | null> {
    return this.redis.get(this.options.key);
  }
}

/** The highest fence used under the lease `key` (`<key>:fence-used`). */
export function createRedisFenceRecord(redis: RedisClient, key: string): FenceRecord {
  const used = `${key}:fence-used`;
  return {
    use: async (fence) => Number(await USE_FENCE.run(redis, [used], [fence])) === 1,
    highest: async () => Number(await redis.get(used)) || 0,
  };
}

/** One node's handle on the lease `options.key` in `redis`. */
export function createRedisLease(redis: RedisClient, options: RedisLeaseOptions): RedisLease {
  return new RedisLease(redis, options);
}
