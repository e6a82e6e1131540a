/**
 * In-memory `SnapshotStore` (unit tests, and the state behind the embedded file store): keeps
 * JSON text, not objects, so it round-trips exactly like Redis does (in the compact form of
 * `../json-text.ts`, docs/operations.md#memory), and appends committed events to its event log in
 * the same synchronous step as the snapshot. A store built on it may swap a record's text for a
 * reference of its own and read it back through `readText` (the embedded journal keeps where the
 * text lies in its file, docs/operations.md#memory).
 *
 * @example
 *   const events = createMemoryEventLog<GatewayEvent>();
 *   const store = createMemorySnapshotStore(events);
 */
import type { LoggedEvent } from '../event-log/port.ts';
import { createMemoryEventLog, type MemoryEventLog } from '../event-log/memory.ts';
import { compactJson, flatText, keptJson } from '../json-text.ts';
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

/** A record as one string (docs/operations.md#memory): `<rev>,<1 final | 0 live>,` then its text as `compactJson` keeps it. */
const keep = (json: string, final: boolean, rev: number): string => flatText(`${rev},${final ? 1 : 0},${compactJson(json)}`);
/** where a kept record's text starts */
const textAt = (kept: string): number => kept.indexOf(',', kept.indexOf(',') + 1) + 1;
const revOf = (kept: string): number => Number(kept.slice(0, kept.indexOf(',')));
const finalOf = (kept: string): boolean => kept.charCodeAt(kept.indexOf(',') + 1) === 49; // '1'

/** How a store reads the text part of a kept record back: `keptJson` unless it keeps references of its own. */
export type ReadText = (text: string) => string;

/** Snapshots in a Map; lost when the process ends (the file store journals them). */
export class MemorySnapshotStore<E extends LoggedEvent = LoggedEvent, R = never> implements SnapshotStore<E, R> {
  private readonly records = new Map<string, string>();

  constructor(
    readonly events: MemoryEventLog<E> = createMemoryEventLog<E>(),
    private readonly sink: RecordSink<R> | null = null,
    private readonly readText: ReadText = keptJson,
  ) {}

  private jsonOf(kept: string): string {
    return this.readText(kept.slice(textAt(kept)));
  }

  /** Swaps the text of record `id` for `text` (read back by `readText`) if the record is still at `rev`. */
  replaceText(id: string, rev: number, text: string): void {
    const kept = this.records.get(id);
    if (kept !== undefined && revOf(kept) === rev) this.records.set(id, flatText(`${rev},${finalOf(kept) ? 1 : 0},${text}`));
  }

  async commit(id: string, change: SnapshotCommit<E, R>): Promise<CommitResult<E>> {
    return this.commitNow(id, change);
  }

  /** The commit, done synchronously (the file store journals exactly what this did). */
  commitNow(id: string, change: SnapshotCommit<E, R>): CommitResult<E> {
    const stored = this.records.get(id);
    if (stored !== undefined && change.rev <= revOf(stored)) return { applied: false };
    // the text once, compact: not a copy of the caller's besides, nor an object (docs/operations.md#memory)
    this.records.set(id, keep(change.json ?? JSON.stringify(change.snapshot), change.final, change.rev));
    for (const r of change.records ?? []) this.sink?.putNow(r);
    return { applied: true, events: change.events.map((e) => this.events.appendNow(e)) };
  }

  /** Puts a record back as it was (replaying a journal). */
  restore(id: string, record: SnapshotRecord): void {
    this.records.set(id, keep(record.json, record.final, record.rev));
  }

  /** Every record (compaction of the file store). */
  *entries(): IterableIterator<[string, SnapshotRecord]> {
    for (const [id, kept] of this.records) yield [id, { json: this.jsonOf(kept), final: finalOf(kept), rev: revOf(kept) }];
  }

  /** Ids of the final records, in the order their ids were first stored (retention). */
  finalIds(): string[] {
    return [...this.records].filter(([, kept]) => finalOf(kept)).map(([id]) => id);
  }

  /** Forgets a final record (retention). */
  forget(id: string): void {
    const kept = this.records.get(id);
    if (kept !== undefined && finalOf(kept)) this.records.delete(id);
  }

  async load(id: string): Promise<unknown | null> {
    const kept = this.records.get(id);
    return kept === undefined ? null : (JSON.parse(this.jsonOf(kept)) as unknown);
  }

  async loadLive(): Promise<StoredSnapshot[]> {
    const out: StoredSnapshot[] = [];
    for (const [id, kept] of this.records) if (!finalOf(kept)) out.push({ id, snapshot: parseOrNull(this.jsonOf(kept)), rev: revOf(kept) });
    return out;
  }

  async isLive(id: string): Promise<boolean> {
    const kept = this.records.get(id);
    return kept !== undefined && !finalOf(kept);
  }

  async close(): Promise<void> {}
}

/** An empty memory snapshot store appending to `events` (a fresh log by default); records go to `sink`; texts are read back by `readText`. */
export function createMemorySnapshotStore<E extends LoggedEvent = LoggedEvent, R = never>(
  events: MemoryEventLog<E> = createMemoryEventLog<E>(),
  sink: RecordSink<R> | null = null,
  readText: ReadText = keptJson,
): MemorySnapshotStore<E, R> {
  return new MemorySnapshotStore<E, R>(events, sink, readText);
}
