/**
 * The configuration of the gateways' JetStream event stream (docs/architecture.md#the-event-stream): its
 * name, subjects and bounds, and the chain it belongs to, written in its description so that an
 * operator reading `nats stream info` sees whose events it holds. Creating it when missing is
 * race-safe: several gateways may try at once, and all end up with the one stream.
 *
 * @example
 *   const info = await ensureStream(jsm, { name: 'GW_EVENTS', subjects: ['gw.events.>'], bounds, chain });
 *   ownerOfStream(info); // the chain named in its description, or null
 *
 * Replicas (GW_EVENT_REPLICAS, docs/operations.md#nats-cluster): a stream is created with them, and
 * one found with fewer is raised to them (`ensureReplicas`); one found with more is left as it is.
 */
import { JetStreamApiCodes, JetStreamApiError, type JetStreamManager, type StreamInfo } from '@nats-io/jetstream';

/** How much the stream keeps. */
export interface StreamBounds {
  maxBytes: number;
  maxAgeMs: number;
  /** -1: no limit */
  maxMsgs: number;
  /** how long a dedup id is remembered */
  duplicateWindowMs: number;
}

/** What the stream is: name, subjects, bounds and, when known, the chain whose events it holds. */
export interface StreamSpec {
  name: string;
  subjects: string[];
  bounds: StreamBounds;
  /** the owning chain (its genesis hash), recorded in the description of a stream created here */
  chain?: string;
  /** copies of the stream on the servers of a cluster [1] */
  replicas?: number;
}

const ms = (n: number): number => n * 1_000_000; // JetStream durations are nanoseconds
const DESCRIPTION_PREFIX = 'gateway events of chain ';

/** The description that names `chain` as the stream's owner. */
export const descriptionOf = (chain: string): string => `${DESCRIPTION_PREFIX}${chain}`;

/** The chain a stream's description names; null for a stream made without one (an older version, or a read-only tool). */
export function ownerOfStream(info: StreamInfo): string | null {
  const d = info.config.description;
  return d?.startsWith(DESCRIPTION_PREFIX) ? d.slice(DESCRIPTION_PREFIX.length) || null : null;
}

/** The stream's info, or null when there is no such stream. */
export async function streamInfo(jsm: JetStreamManager, name: string): Promise<StreamInfo | null> {
  try {
    return await jsm.streams.info(name);
  } catch (err) {
    if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound) return null;
    throw err;
  }
}

/** What `ensureReplicas` found and did. */
export interface ReplicaChange {
  stream: string;
  found: number;
  /** the replicas the stream has now */
  now: number;
}

/**
 * Raises the replicas of stream `name` (an event stream, or a KV bucket's `KV_<bucket>`) to
 * `replicas` when it has fewer: the servers copy what it holds to the new replicas while it keeps
 * serving. A stream with as many or more is left as it is (lowering is an operator's decision).
 * Fails, with the server's reason, when the cluster has fewer servers than asked for.
 */
export async function ensureReplicas(jsm: JetStreamManager, name: string, replicas: number): Promise<ReplicaChange> {
  const info = await jsm.streams.info(name);
  const found = info.config.num_replicas || 1;
  if (found >= replicas) return { stream: name, found, now: found };
  try {
    await jsm.streams.update(name, { num_replicas: replicas });
  } catch (err) {
    throw new Error(`stream ${name} has ${found} replica(s) and could not be raised to ${replicas}: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
    });
  }
  return { stream: name, found, now: replicas };
}

/** The stream, created (with its owner in the description) when missing; another gateway may win the race, then its stream is returned. */
export async function ensureStream(jsm: JetStreamManager, spec: StreamSpec): Promise<StreamInfo> {
  const found = await streamInfo(jsm, spec.name);
  if (found) return found;
  const b = spec.bounds;
  try {
    return await jsm.streams.add({
      name: spec.name,
      subjects: spec.subjects,
      max_bytes: b.maxBytes,
      max_msgs: b.maxMsgs,
      max_age: ms(b.maxAgeMs),
      duplicate_window: ms(b.duplicateWindowMs),
      num_replicas: spec.replicas ?? 1,
      ...(spec.chain ? { description: descriptionOf(spec.chain) } : {}),
    });
  } catch (err) {
    const raced = await streamInfo(jsm, spec.name);
    if (raced) return raced;
    throw err;
  }
}
