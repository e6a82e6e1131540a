/**
 * Durable state of the local chain (design: "State is persisted in DATA_DIR after every
 * transaction"): an append-only, fsync'd journal of the accounts each transaction wrote,
 * plus a snapshot of the whole LiteSVM state that the journal is folded into (compaction).
 * A restart loads the snapshot and replays the journal; a torn last line (the process was
 * killed mid-write, before the client could have seen the signature) is cut off.
 */
import { closeSync, existsSync, fdatasyncSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { TxErrorJson } from './tx-errors.ts';

/** One account as written by a transaction; `lamports` null means the account was deleted. */
export interface AccountImage {
  address: string;
  lamports: bigint | null;
  owner: string;
  executable: boolean;
  data: Uint8Array;
}

/** What one transaction (or airdrop, or slot mark) left behind. */
export interface JournalRecord {
  slot: number;
  signature?: string;
  err?: TxErrorJson | null;
  accounts?: AccountImage[];
}

/** A signature's outcome, kept for getSignatureStatuses and duplicate detection. */
export interface StatusEntry {
  slot: number;
  err: TxErrorJson | null;
}

/** Everything folded into the snapshot besides LiteSVM's own bytes. */
export interface SnapshotMeta {
  slot: number;
  statuses: [string, StatusEntry][];
}

/** What a restart finds on disk. */
export interface LoadedState {
  snapshot: { meta: SnapshotMeta; svm: Uint8Array } | null;
  records: JournalRecord[];
}

type StoredAccount = [string, string | null, string, 0 | 1, string];

function encodeRecord(r: JournalRecord): string {
  const accounts = r.accounts?.map((a): StoredAccount => [a.address, a.lamports === null ? null : a.lamports.toString(), a.owner, a.executable ? 1 : 0, Buffer.from(a.data).toString('base64')]);
  return `${JSON.stringify({ s: r.slot, g: r.signature, e: r.err, a: accounts })}\n`;
}

function decodeRecord(line: string): JournalRecord {
  const o = JSON.parse(line) as { s: number; g?: string; e?: TxErrorJson | null; a?: StoredAccount[] };
  if (typeof o.s !== 'number') throw new Error('journal record without slot');
  const rec: JournalRecord = { slot: o.s };
  if (o.g !== undefined) rec.signature = o.g;
  if (o.e !== undefined) rec.err = o.e;
  if (o.a) {
    rec.accounts = o.a.map(([address, lamports, owner, executable, data]) => ({
      address,
      lamports: lamports === null ? null : BigInt(lamports),
      owner,
      executable: executable === 1,
      data: new Uint8Array(Buffer.from(data, 'base64')),
    }));
  }
  return rec;
}

/** Journal + snapshot files in one directory. */
export class Journal {
  private fd: number | null = null;
  private count = 0;
  private flushWaiters: (() => void)[] = [];
  private flushScheduled = false;
  private readonly logPath: string;
  private readonly snapPath: string;

  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true });
    this.logPath = join(dir, 'journal.log');
    this.snapPath = join(dir, 'snapshot.bin');
  }

  /** Records appended since the last compaction. */
  get length(): number {
    return this.count;
  }

  /** Reads snapshot and journal, cutting a torn tail, and opens the journal for appends. */
  load(): LoadedState {
    let snapshot: LoadedState['snapshot'] = null;
    if (existsSync(this.snapPath)) {
      const buf = readFileSync(this.snapPath);
      const headerLen = buf.readUInt32LE(0);
      const meta = JSON.parse(buf.subarray(4, 4 + headerLen).toString('utf8')) as SnapshotMeta;
      snapshot = { meta, svm: new Uint8Array(buf.subarray(4 + headerLen)) };
    }
    const records: JournalRecord[] = [];
    let goodBytes = 0;
    if (existsSync(this.logPath)) {
      const text = readFileSync(this.logPath);
      let start = 0;
      while (start < text.length) {
        const nl = text.indexOf(10, start);
        if (nl < 0) break; // torn tail: no newline
        try {
          records.push(decodeRecord(text.subarray(start, nl).toString('utf8')));
        } catch (err) {
          if (text.indexOf(10, nl + 1) >= 0) throw new Error(`journal corrupt at byte ${start}`, { cause: err });
          break; // torn last line
        }
        start = nl + 1;
        goodBytes = start;
      }
    }
    this.fd = openSync(this.logPath, 'a+');
    ftruncateSync(this.fd, goodBytes);
    this.count = records.length;
    return { snapshot, records };
  }

  /** Appends one record (in the page cache; `sync()` makes it durable). */
  append(record: JournalRecord): void {
    if (this.fd === null) throw new Error('journal not open');
    writeSync(this.fd, encodeRecord(record));
    this.count++;
  }

  /** Waits until every appended record is on disk. */
  sync(): void {
    if (this.fd !== null) fdatasyncSync(this.fd);
  }

  /**
   * Appends a record and resolves once it is on disk. Group commit: one fsync, at the end of
   * this event-loop turn, serves every record appended in it.
   */
  appendDurably(record: JournalRecord): Promise<void> {
    this.append(record);
    return new Promise((resolve) => {
      this.flushWaiters.push(resolve);
      if (this.flushScheduled) return;
      this.flushScheduled = true;
      setImmediate(() => {
        this.flushScheduled = false;
        const waiters = this.flushWaiters;
        this.flushWaiters = [];
        this.sync(); // a failing fsync throws out of the event loop: the process stops rather than lie
        for (const w of waiters) w();
      });
    });
  }

  /** Writes a new snapshot atomically, then empties the journal (replaying it over the snapshot would be harmless). */
  compact(meta: SnapshotMeta, svm: Uint8Array): void {
    const header = Buffer.from(JSON.stringify(meta), 'utf8');
    const len = Buffer.alloc(4);
    len.writeUInt32LE(header.length);
    const tmp = `${this.snapPath}.tmp`;
    const fd = openSync(tmp, 'w');
    writeSync(fd, len);
    writeSync(fd, header);
    writeSync(fd, svm);
    fsyncSync(fd);
    closeSync(fd);
    renameSync(tmp, this.snapPath);
    syncDir(this.dir);
    if (this.fd !== null) {
      ftruncateSync(this.fd, 0);
      fsyncSync(this.fd);
    }
    this.count = 0;
  }

  /** Syncs and closes the journal file. */
  close(): void {
    if (this.fd === null) return;
    fdatasyncSync(this.fd);
    closeSync(this.fd);
    this.fd = null;
  }
}

/** fsync a directory so a rename inside it survives a crash. */
export function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
