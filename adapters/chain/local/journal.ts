/**
 * The local chain's journal (docs/architecture.md#the-local-chain: state is on disk after every transaction):
 * an append-only, fsync'd record of the accounts each transaction wrote, kept as numbered
 * segments `journal.<n>.log`. Compaction starts a new segment (`rotate`), folds everything before
 * it into a snapshot (`snapshot-file.ts`) and then drops the older segments, so a restart reads
 * the snapshot and replays only the segments it does not cover. A torn last line of the newest
 * segment (the process was killed mid-write, before the client could have seen the signature) is
 * cut off. `journal.log`, the single file of earlier versions, is segment 0.
 */
import { mkdirSync, readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import { syncDir } from '../../store/file/atomic-file.ts';
import { LineJournal } from '../../store/file/line-journal.ts';
import { StoredAccountSchema, accountFromStored, storedAccount, type AccountImage } from './stored-account.ts';
import type { TxErrorJson } from './tx-errors.ts';

export type { AccountImage };

/** What one transaction (or airdrop, or slot mark) left behind. */
export interface JournalRecord {
  slot: number;
  signature?: string;
  err?: TxErrorJson | null;
  /** unix seconds the transaction was committed at (its block time) */
  time?: number;
  accounts?: AccountImage[];
}

/** A signature's outcome, kept for getSignatureStatuses and duplicate detection. */
export interface StatusEntry {
  slot: number;
  err: TxErrorJson | null;
}

const Stored = v.object({
  s: v.number(),
  g: v.optional(v.string()),
  e: v.optional(v.nullable(v.unknown())),
  t: v.optional(v.number()),
  a: v.optional(v.array(StoredAccountSchema)),
});

function encodeRecord(r: JournalRecord): string {
  return JSON.stringify({ s: r.slot, g: r.signature, e: r.err, t: r.time, a: r.accounts?.map(storedAccount) });
}

function decodeRecord(line: string): JournalRecord {
  const o = v.parse(Stored, JSON.parse(line));
  const rec: JournalRecord = { slot: o.s };
  if (o.g !== undefined) rec.signature = o.g;
  if (o.e !== undefined) rec.err = o.e as TxErrorJson | null; // written by encodeRecord from a TxErrorJson
  if (o.t !== undefined) rec.time = o.t;
  if (o.a) rec.accounts = o.a.map(accountFromStored);
  return rec;
}

const LEGACY_SEGMENT = 'journal.log';
const segmentName = (n: number): string => (n === 0 ? LEGACY_SEGMENT : `journal.${n}.log`);

/** The segment numbers present in `dir`, oldest first. */
function segmentsIn(dir: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync(dir)) {
    if (name === LEGACY_SEGMENT) found.push(0);
    const m = /^journal\.(\d+)\.log$/.exec(name);
    if (m) found.push(Number(m[1]));
  }
  return found.sort((a, b) => a - b);
}

/** The journal segments of one directory; appends go to the newest. */
export class Journal {
  private log: LineJournal | null = null;
  /** the segment appends go to */
  private current = 0;
  /** records and account images per segment not yet dropped */
  private readonly counts = new Map<number, { records: number; images: number }>();

  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  /** Records in the segments not yet folded into a snapshot (what a restart would replay). */
  get length(): number {
    let n = 0;
    for (const c of this.counts.values()) n += c.records;
    return n;
  }

  /** Account images those records hold (what a replay costs). */
  get images(): number {
    let n = 0;
    for (const c of this.counts.values()) n += c.images;
    return n;
  }

  /** How many segments a restart would replay (more than one after an interrupted compaction). */
  get segments(): number {
    return this.counts.size;
  }

  /**
   * Hands every record of the segments from `from` on to `apply`, oldest first, deletes the
   * segments before `from` (a snapshot covers them), and opens the newest segment for appends
   * (creating segment `from`, or 1 on a fresh directory, when there is none). Returns the count.
   */
  replay(from: number, apply: (record: JournalRecord) => void): number {
    const present = segmentsIn(this.dir);
    this.deleteSegments(present.filter((n) => n < from));
    const kept = present.filter((n) => n >= from);
    let total = 0;
    kept.forEach((n, i) => {
      const count = { records: 0, images: 0 };
      let failed: { err: unknown } | null = null;
      const visit = (line: string) => {
        const record = decodeRecord(line); // a line that does not decode is a torn tail (or damage)
        if (failed) return;
        try {
          apply(record);
        } catch (err) {
          failed = { err }; // not a torn line: the open fails below
        }
        count.records++;
        count.images += record.accounts?.length ?? 0;
      };
      if (i === kept.length - 1) this.log = LineJournal.openEach(join(this.dir, segmentName(n)), visit);
      else LineJournal.readEach(join(this.dir, segmentName(n)), visit); // an older segment is never appended to again
      if (failed) {
        this.close();
        throw new Error(`replaying ${segmentName(n)} failed`, { cause: (failed as { err: unknown }).err });
      }
      this.counts.set(n, count);
      total += count.records;
    });
    if (!this.log) {
      this.current = Math.max(from, 1);
      this.log = LineJournal.openEach(join(this.dir, segmentName(this.current)), () => undefined);
      this.counts.set(this.current, { records: 0, images: 0 });
      syncDir(this.dir);
    } else {
      this.current = kept[kept.length - 1] as number;
    }
    return total;
  }

  private open(): LineJournal {
    if (!this.log) throw new Error('journal not open');
    return this.log;
  }

  /** Appends one record (in the page cache; `sync()` makes it durable). */
  append(record: JournalRecord): void {
    this.open().append(encodeRecord(record));
    this.count(record);
  }

  private count(record: JournalRecord): void {
    const c = this.counts.get(this.current);
    if (!c) return;
    c.records++;
    c.images += record.accounts?.length ?? 0;
  }

  /** Waits until every appended record is on disk. */
  sync(): void {
    this.log?.sync();
  }

  /** Appends a record and resolves once it is on disk (group commit: one fsync per event-loop turn). */
  appendDurably(record: JournalRecord): Promise<void> {
    const done = this.open().appendDurably(encodeRecord(record));
    this.count(record);
    return done;
  }

  /**
   * Starts a new segment and returns its number: every record appended before this call is in
   * an older segment, on disk (the old segment is synced and closed before anything is appended
   * to the new one, so no later record can be durable while an earlier one is not).
   */
  rotate(): number {
    const old = this.open();
    const next = this.current + 1;
    const fresh = LineJournal.openEach(join(this.dir, segmentName(next)), () => undefined);
    syncDir(this.dir);
    this.log = fresh;
    this.current = next;
    this.counts.set(next, { records: 0, images: 0 });
    old.close(); // fsyncs, and releases the appends that were waiting for it
    return next;
  }

  /** Deletes the segments before `from` once a durable snapshot covers them. */
  dropBefore(from: number): void {
    this.deleteSegments(segmentsIn(this.dir).filter((n) => n < from));
  }

  private deleteSegments(numbers: number[]): void {
    for (const n of numbers) {
      this.counts.delete(n);
      unlinkSync(join(this.dir, segmentName(n)));
    }
    if (numbers.length > 0) syncDir(this.dir);
  }

  /** Syncs and closes the journal. */
  close(): void {
    this.log?.close();
    this.log = null;
  }
}
