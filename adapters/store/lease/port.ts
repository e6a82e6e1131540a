/**
 * The leader lease port (docs/architecture.md#the-leader): one node at a time holds the lease, and
 * every new holder gets a higher fencing token. Adapters: Redis (`redis.ts`) and a replicated
 * JetStream KV bucket (`nats-kv.ts`).
 *
 * The fence record keeps the highest fence any leader used to act, so a leader that was paused
 * and comes back with an older fence refuses to act even before its lease tells it so.
 *
 * @example
 *   const fence = await lease.acquire();          // a number when held, null when another node holds it
 *   if (fence !== null && (await fences.use(fence))) closeBets();
 */

/** Who asks for the lease, and for how long a holding lasts. */
export interface LeaseIdentity {
  /** this node's id (must not contain a newline) */
  node: string;
  ttlMs: number;
}

/** One node's handle on the leader lease. */
export interface LeaderLease {
  readonly options: LeaseIdentity;
  /** Takes the lease when it is free (or already ours); the fence when held, null otherwise. */
  acquire(): Promise<number | null>;
  /** Extends the lease by its TTL; false when it is no longer ours. */
  renew(): Promise<boolean>;
  /** Gives the lease up when it is ours (shutdown), so another node takes over at once. */
  release(): Promise<void>;
  /** Who holds the lease now (`<node>:<fence>`), null when nobody does. */
  holder(): Promise<string | null>;
}

/** The highest fence used to act, kept durably beside the lease. */
export interface FenceRecord {
  /**
   * Records `fence` as the highest used, unless a higher one is recorded already: true when
   * `fence` is (now) the highest, false when a newer leader used a higher one (the caller is stale).
   */
  use(fence: number): Promise<boolean>;
  /** The highest fence recorded, 0 when none. */
  highest(): Promise<number>;
}
