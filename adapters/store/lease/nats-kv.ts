/**
 * The leader lease in a replicated JetStream KV bucket (docs/architecture.md#the-leader,
 * docs/decisions.md#the-leader-lease-in-nats-kv-when-nats-is-configured). Every write is a
 * compare-and-set on the key's revision, which the stream leader of the bucket checks, so two
 * nodes never both succeed:
 *
 * - the key `leader` holds `{node, fence}`; it is taken with `create` when absent (or deleted),
 *   renewed with `update(key, value, revision)` by its holder, and released with a delete that
 *   names the holder's revision;
 * - the fence is the KV revision of the write that took the lease: the bucket's stream sequence,
 *   which never goes backwards (with R3 it survives the loss of a node: an acknowledged write is
 *   on a majority, and the next stream leader is one of them);
 * - expiry needs no clock shared between machines: a node that sees the same revision stand
 *   still for a whole TTL on its own monotonic clock takes the lease over (CAS on that revision).
 *   Its clock starts when it read the revision, after the holder sent the write that made it, and
 *   the holder counts on its lease for less than a TTL from the moment it sent that write;
 * - the key `fence-used` holds the highest fence a leader acted with (`FenceRecord`), raised by
 *   CAS and checked before every close (docs/architecture.md#the-leader).
 *
 * @example
 *   const kv = await openLeaderBucket(nc, { bucket: 'GW_EVENTS_LEADER', replicas: 3 });
 *   const lease = createNatsKvLease(kv, { node: 'gw-1', ttlMs: 5_000 });
 *   const fences = createNatsKvFenceRecord(kv);
 */
import { JetStreamApiCodes, JetStreamApiError, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm, type KV, type KvEntry } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import * as v from 'valibot';
import { ensureReplicas } from '../event-log/stream-config.ts';
import type { FenceRecord, LeaderLease, LeaseIdentity } from './port.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { jsonOrUndefined } from '../../../kernel/json.ts';

const LEASE_KEY = 'leader';
const FENCE_KEY = 'fence-used';

const LeaseValue = v.object({ node: v.string(), fence: v.optional(v.number()) });

/** A compare-and-set that lost: the key was not at the revision named. */
export function isWrongRevision(err: unknown): boolean {
  return (
    err instanceof JetStreamApiError &&
    (err.code === JetStreamApiCodes.StreamWrongLastSequence || err.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

/** Writes `value` under `key` if it is still at `revision` (0 or a delete marker's: absent); the new revision, or null when another writer came first. */
async function compareAndSet(kv: KV, key: string, value: string, current: KvEntry | null): Promise<number | null> {
  try {
    return current === null || current.operation !== 'PUT' ? await kv.create(key, value) : await kv.update(key, value, current.revision);
  } catch (err) {
    if (isWrongRevision(err)) return null;
    throw err;
  }
}

/** The bucket's options. */
export interface LeaderBucketOptions {
  bucket: string;
  /** replicas of the bucket's stream (GW_EVENT_REPLICAS); an existing bucket with fewer is raised to it */
  replicas: number;
}

/** Opens (creating when missing) the bucket of the lease on `nc`; the caller owns the connection. */
export async function openLeaderBucket(nc: NatsConnection, o: LeaderBucketOptions): Promise<KV> {
  const kv = await new Kvm(jetstream(nc)).create(o.bucket, { history: 1, replicas: o.replicas });
  await ensureReplicas(await jetstreamManager(nc), `KV_${o.bucket}`, o.replicas);
  return kv;
}

/** A holder's revision seen by a node that waits for it to stand still. */
interface Watched {
  revision: number;
  since: number;
}

/** One node's handle on the lease kept in `kv`. */
export class NatsKvLease implements LeaderLease {
  private fence: number | null = null;
  /** the revision of this node's last write of the lease */
  private revision = 0;
  private watched: Watched | null = null;

  constructor(
    private readonly kv: KV,
    readonly options: LeaseIdentity,
    private readonly monotonic: () => number = () => performance.now(),
  ) {}

  private async read(): Promise<{ entry: KvEntry | null; value: v.InferOutput<typeof LeaseValue> | null }> {
    const entry = await this.kv.get(LEASE_KEY);
    if (!entry || entry.operation !== 'PUT') return { entry, value: null };
    const parsed = v.safeParse(LeaseValue, jsonOrUndefined(entry.string()));
    return { entry, value: parsed.success ? parsed.output : null };
  }

  async acquire(): Promise<number | null> {
    // always a new take, with the revision of its own write as the fence: a node that stopped leading (its
    // renewals timed out) and takes the lease again must not lead on under the fence it had, which a
    // leader in between may have passed (docs/architecture.md#the-leader)
    this.fence = null;
    const { entry, value } = await this.read();
    const free = entry === null || entry.operation !== 'PUT';
    if (!free && value?.node !== this.options.node) {
      // another node's: taken over only once its revision stood still for a whole TTL here
      const now = this.monotonic();
      if (this.watched?.revision !== entry.revision) this.watched = { revision: entry.revision, since: now };
      if (now - this.watched.since < this.options.ttlMs) return null;
    }
    // free, ours from an earlier start of this node, or stale: taken with a new fence (the revision of this write)
    const revision = await compareAndSet(this.kv, LEASE_KEY, JSON.stringify({ node: this.options.node }), entry);
    if (revision === null) return null;
    this.watched = null;
    this.revision = revision;
    this.fence = revision;
    return revision;
  }

  async renew(): Promise<boolean> {
    if (this.fence === null) return false;
    try {
      this.revision = await this.kv.update(LEASE_KEY, JSON.stringify({ node: this.options.node, fence: this.fence }), this.revision);
      return true;
    } catch (err) {
      if (!isWrongRevision(err)) throw err;
      this.fence = null;
      return false;
    }
  }

  async release(): Promise<void> {
    if (this.fence === null) return;
    this.fence = null;
    await this.kv.delete(LEASE_KEY, { previousSeq: this.revision }).catch((err: unknown) => {
      if (!isWrongRevision(err)) throw err;
    });
  }

  async holder(): Promise<string | null> {
    const { entry, value } = await this.read();
    if (!entry || !value) return null;
    return `${value.node}:${value.fence ?? entry.revision}`;
  }
}

/** One node's handle on the lease in `kv` (see `openLeaderBucket`). */
export function createNatsKvLease(kv: KV, identity: LeaseIdentity, monotonic?: () => number): NatsKvLease {
  return new NatsKvLease(kv, identity, monotonic);
}

/** How many compare-and-set rounds `use` tries before it reports the bucket unusable. */
const USE_ATTEMPTS = 20;

/**
 * The highest fence used, in `kv` under `fence-used`. `use` always ends in a write that the
 * bucket's stream leader checks (a read alone may come from a replica that lags), so a stale
 * leader cannot pass on an old read.
 */
export function createNatsKvFenceRecord(kv: KV): FenceRecord {
  const read = async (): Promise<{ entry: KvEntry | null; highest: number }> => {
    const entry = await kv.get(FENCE_KEY);
    return { entry, highest: entry?.operation === 'PUT' ? Number(entry.string()) || 0 : 0 };
  };
  return {
    async use(fence) {
      for (let attempt = 0; attempt < USE_ATTEMPTS; attempt++) {
        const { entry, highest } = await read();
        if (highest > fence) return false;
        if ((await compareAndSet(kv, FENCE_KEY, String(fence), entry)) !== null) return true;
        await sleep(5 * (attempt + 1));
      }
      throw new Error(`the fence record of the leader lease changed ${USE_ATTEMPTS} times while fence ${fence} was being recorded`);
    },
    async highest() {
      return (await read()).highest;
    },
  };
}
