/**
 * Durable state of the local chain (design: "State is persisted in DATA_DIR after every
 * transaction"): an append-only, fsync'd journal of the accounts each transaction wrote,
 * plus a snapshot of the whole LiteSVM state that the journal is folded into (compaction).
 * A restart loads the snapshot and replays the journal; a torn last line (the process was
 * killed mid-write, before the client could have seen the signature) is cut off.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { LineJournal, syncDir } from '../../store/line-journal.ts';
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
  return JSON.stringify({ s: r.slot, g: r.signature, e: r.err, a: accounts });
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
  private log: LineJournal | null = null;
  private readonly logPath: string;
  private readonly snapPath: string;

  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true });
    this.logPath = join(dir, 'journal.log');
    this.snapPath = join(dir, 'snapshot.bin');
  }

  /** Records appended since the last compaction. */
  get length(): number {
    return this.log?.length ?? 0;
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
    const { journal, lines } = LineJournal.open(this.logPath, (line) => void decodeRecord(line));
    this.log = journal;
    return { snapshot, records: lines.map(decodeRecord) };
  }

  private open(): LineJournal {
    if (!this.log) throw new Error('journal not open');
    return this.log;
  }

  /** Appends one record (in the page cache; `sync()` makes it durable). */
  append(record: JournalRecord): void {
    this.open().append(encodeRecord(record));
  }

  /** Waits until every appended record is on disk. */
  sync(): void {
    this.log?.sync();
  }

  /** Appends a record and resolves once it is on disk (group commit: one fsync per event-loop turn). */
  appendDurably(record: JournalRecord): Promise<void> {
    return this.open().appendDurably(encodeRecord(record));
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
    this.log?.truncate();
  }

  /** Syncs and closes the journal file. */
  close(): void {
    this.log?.close();
    this.log = null;
  }
}

export { syncDir };
