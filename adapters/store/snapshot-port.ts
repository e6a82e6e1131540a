/**
 * Where actor snapshots live between transitions (design: "Shape": persisted on every
 * transition, rehydrated at boot). One record per actor, keyed by a domain id (for bets:
 * the chain's first bet id). A record is either live (rehydrated at boot) or final
 * (kept for operators, never rehydrated). Snapshots are stored as JSON text.
 */

/** A stored snapshot with the id it was saved under; `snapshot` is null when the stored text is not JSON. */
export interface StoredSnapshot {
  id: string;
  snapshot: unknown;
}

/** JSON.parse that answers null for text that is not JSON (a damaged record must not stop a boot). */
export function parseOrNull(json: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return null;
  }
}

/** Storage of persisted actor snapshots; implemented in memory and over Redis. */
export interface SnapshotStore {
  /** Writes the snapshot of `id`; `final` moves it out of the live set. Saves of one id must be awaited in order. */
  save(id: string, snapshot: unknown, final: boolean): Promise<void>;
  /** The last snapshot saved for `id`, live or final; null when none. */
  load(id: string): Promise<unknown | null>;
  /** Every live (non-final) snapshot, for rehydration at boot. */
  loadLive(): Promise<StoredSnapshot[]>;
  /** Whether `id` is in the live set. */
  isLive(id: string): Promise<boolean>;
  close(): Promise<void>;
}
