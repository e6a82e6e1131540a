/**
 * In-memory `SnapshotStore` (unit tests, and the state behind the embedded file store): keeps
 * JSON text, not objects, so it round-trips exactly like Redis does (in the compact form of
 * `../json-text.ts`, docs/operations.md#memory), and appends committed events to its event log in
 * the same synchronous step as the snapshot.
 *
 * @example
 *   const events = createMemoryEventLog<GatewayEvent>();
 *   const store = createMemorySnapshotStore(events);
 */
import type { LoggedEvent } from '../event-log/port.ts';
import { createMemoryEventLog, type MemoryEventLog } from '../event-log/memory.ts';
import { keepJson, keptJson } from '../json-text.ts';
import { parseOrNull, type CommitResult, type SnapshotCommit, type SnapshotStore, type StoredSnapshot } from './port.ts';

/** A record: JSON text, live or final, and its rev. */
export interface SnapshotRecord {
  json: string;
  final: boolean;
  rev: number;
}

/** Where a memory store puts the records a commit carries (e.g. a memory bet history). */
export interface RecordSink<R> {
  putNow(record: R): void;
}

/** Snapshots in a Map; lost when the process ends (the file store journals them). */
export class MemorySnapshotStore<E extends LoggedEvent = LoggedEvent, R = never> implements SnapshotStore<E, R> {
  private readonly records = new Map<string, SnapshotRecord>();

  constructor(
    readonly events: MemoryEventLog<E> = createMemoryEventLog<E>(),
    private readonly sink: RecordSink<R> | null = null,
  ) {}

  async commit(id: string, change: SnapshotCommit<E, R>): Promise<CommitResult<E>> {
    return this.commitNow(id, change);
  }

  /** The commit, done synchronously (the file store journals exactly what this did). */
  commitNow(id: string, change: SnapshotCommit<E, R>): CommitResult<E> {
    const stored = this.records.get(id);
    if (stored && change.rev <= stored.rev) return { applied: false };
    // the text once, compact: not a copy of the caller's besides, nor an object (docs/operations.md#memory)
    this.records.set(id, { json: keepJson(change.json ?? JSON.stringify(change.snapshot)), final: change.final, rev: change.rev });
    for (const r of change.records ?? []) this.sink?.putNow(r);
    return { applied: true, events: change.events.map((e) => this.events.appendNow(e)) };
  }

  /** Puts a record back as it was (replaying a journal). */
  restore(id: string, record: SnapshotRecord): void {
    this.records.set(id, { json: keepJson(record.json), final: record.final, rev: record.rev });
  }

  /** Every record (compaction of the file store). */
  *entries(): IterableIterator<[string, SnapshotRecord]> {
    for (const [id, rec] of this.records) yield [id, { ...rec, json: keptJson(rec.json) }];
  }

  /** Forgets a final record (retention). */
  forget(id: string): void {
    if (this.records.get(id)?.final) this.records.delete(id);
  }

  async load(id: string): Promise<unknown | null> {
    const rec = this.records.get(id);
    return rec ? (JSON.parse(keptJson(rec.json)) as unknown) : null;
  }

  async loadLive(): Promise<StoredSnapshot[]> {
    const out: StoredSnapshot[] = [];
    for (const [id, rec] of this.records) if (!rec.final) out.push({ id, snapshot: parseOrNull(keptJson(rec.json)), rev: rec.rev });
    return out;
  }

  async isLive(id: string): Promise<boolean> {
    const rec = this.records.get(id);
    return rec !== undefined && !rec.final;
  }

  async close(): Promise<void> {}
}

/** An empty memory snapshot store appending to `events` (a fresh log by default); records go to `sink`. */
export function createMemorySnapshotStore<E extends LoggedEvent = LoggedEvent, R = never>(
  events: MemoryEventLog<E> = createMemoryEventLog<E>(),
  sink: RecordSink<R> | null = null,
): MemorySnapshotStore<E, R> {
  return new MemorySnapshotStore<E, R>(events, sink);
}
