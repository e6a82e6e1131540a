/**
 * Where actor snapshots live between transitions (docs/architecture.md#stores: persisted on
 * every transition, rehydrated at boot), together with the events each transition emitted: a commit
 * writes the snapshot, moves the actor in or out of the live set and appends its events to the
 * event log (each getting its seq) in ONE atomic step (docs/architecture.md#the-atomic-commit-of-a-bet),
 * so a crash can never keep one without the other.
 *
 * One record per actor, keyed by a domain id (for bets: the chain's first bet id). A record is
 * either live (rehydrated at boot) or final (kept for operators, never rehydrated). Snapshots
 * are stored as JSON text. Commits of one id carry increasing `rev`s; a commit whose rev is not
 * above the stored one changes nothing (`applied: false`), so retrying a commit whose answer
 * was lost never appends its events twice.
 *
 * A commit may also carry records that follow from the transition (for bets: their history
 * records with the settlement evidence, docs/decisions.md#history-in-the-commit): they are written in the same
 * atomic step, so no crash keeps a transition without what it says about the bet.
 */
import type { LoggedEvent, Sequenced } from '../event-log/port.ts';

/** A stored snapshot with the id it was saved under; `snapshot` is null when the stored text is not JSON. */
export interface StoredSnapshot {
  id: string;
  snapshot: unknown;
  /** rev of the commit that wrote it (0 when unknown) */
  rev: number;
}

/** JSON.parse that answers null for text that is not JSON (a damaged record must not stop a boot). */
export function parseOrNull(json: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return null;
  }
}

/** One atomic write: the snapshot after a transition, the events that transition emitted, and the records it wrote. */
export interface SnapshotCommit<E extends LoggedEvent, R = never> {
  snapshot: unknown;
  /** `JSON.stringify(snapshot)` when the caller has made it already (a store then keeps or sends this text) */
  json?: string;
  /** moves the record out of the live set */
  final: boolean;
  events: readonly E[];
  /** increasing per id (1 for the first commit) */
  rev: number;
  /** whole records (each replaces the stored one of its id), written with the snapshot */
  records?: readonly R[];
}

/** What a commit did: appended its events (with their seqs), or nothing because its rev was already stored. */
export type CommitResult<E extends LoggedEvent> = { applied: true; events: Array<Sequenced<E>> } | { applied: false };

/** Storage of persisted actor snapshots and their events; implemented in memory, in a file and over Redis. */
export interface SnapshotStore<E extends LoggedEvent = LoggedEvent, R = never> {
  /** Writes snapshot, live-set change, events and records atomically. Commits of one id must be awaited in order. */
  commit(id: string, change: SnapshotCommit<E, R>): Promise<CommitResult<E>>;
  /** The last snapshot saved for `id`, live or final; null when none. */
  load(id: string): Promise<unknown | null>;
  /** Every live (non-final) snapshot, for rehydration at boot; ids in `except` may be left out (already carried). */
  loadLive(except?: ReadonlySet<string>): Promise<StoredSnapshot[]>;
  /** Whether `id` is in the live set. */
  isLive(id: string): Promise<boolean>;
  close(): Promise<void>;
}
