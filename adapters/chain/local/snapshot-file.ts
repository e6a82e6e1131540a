/**
 * The local chain's snapshot, `snapshot.jsonl`: the state the journal segments before
 * `journalFrom` led to, as JSON lines — a header, the live accounts' images in chunks, the
 * signature statuses, the signature index, and an end line with the counts. It is written in
 * slices (`SnapshotWriter`, one chunk at a time, no buffer holding the whole state) beside the
 * live one and renamed over it once complete and on disk; it is read back line by line. Its size
 * is bounded by the disk only.
 *
 * @example
 *   const w = SnapshotWriter.create(dir, { slot, journalFrom });
 *   w.accounts(images); w.statuses(entries); w.signatures(lists);
 *   await w.finish(); w.install();
 *   readSnapshot(dir, visitor); // the header, or null when the dir has no snapshot
 */
import { closeSync, existsSync, fsync, openSync, readdirSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as v from 'valibot';
import { syncDir } from '../../store/file/atomic-file.ts';
import { LineJournal } from '../../store/file/line-journal.ts';
import type { StatusEntry } from './journal.ts';
import type { SignatureEntry } from './signature-index.ts';
import { StoredAccountSchema, accountFromStored, storedAccount, type AccountImage } from './stored-account.ts';
import type { TxErrorJson } from './tx-errors.ts';

const SNAPSHOT = 'snapshot.jsonl';
const FORMAT = 'local-chain-accounts/1';
const fsyncAsync = promisify(fsync);

/** What the first line says. */
export interface SnapshotHeader {
  slot: number;
  /** the first journal segment the snapshot does not cover */
  journalFrom: number;
}

/** What a read hands over, chunk by chunk. */
export interface SnapshotVisitor {
  accounts(images: AccountImage[]): void;
  statuses(entries: [string, StatusEntry][]): void;
  signatures(address: string, entries: SignatureEntry[]): void;
}

const TxErr = v.nullable(v.unknown());
const Header = v.object({ format: v.literal(FORMAT), slot: v.number(), journalFrom: v.pipe(v.number(), v.integer(), v.minValue(1)) });
const Line = v.union([
  v.object({ accounts: v.array(StoredAccountSchema) }),
  v.object({ statuses: v.array(v.tuple([v.string(), v.number(), TxErr])) }),
  // transactions of the chunk once each, then each address with indexes into them
  v.object({
    signatures: v.object({
      txs: v.array(v.tuple([v.string(), v.number(), TxErr, v.nullable(v.number())])),
      addresses: v.array(v.tuple([v.string(), v.array(v.number())])),
    }),
  }),
  v.object({ end: v.object({ accounts: v.number(), statuses: v.number(), addresses: v.number() }) }),
]);

/** A snapshot that does not read back whole (damaged after it was written: the chain refuses to start on it). */
export class DamagedSnapshot extends Error {
  constructor(path: string, reason: string) {
    super(`${path} is damaged (${reason}); the chain will not start on a partial state`);
    this.name = 'DamagedSnapshot';
  }
}

/** Reads the snapshot of `dir` into `visitor`; null when there is none. */
export function readSnapshot(dir: string, visitor: SnapshotVisitor): SnapshotHeader | null {
  const path = join(dir, SNAPSHOT);
  if (!existsSync(path)) return null;
  let header: SnapshotHeader | null = null;
  let ended = false;
  const seen = { accounts: 0, statuses: 0, addresses: 0 };
  const txs = new Map<string, SignatureEntry>(); // one object per transaction, shared by its addresses
  // A snapshot is renamed into place only once complete and synced: any line that does not parse is damage, never a torn tail.
  const count = LineJournal.readEach(path, (text) => {
    try {
      const raw: unknown = JSON.parse(text);
      if (header === null) {
        const h = v.parse(Header, raw);
        header = { slot: h.slot, journalFrom: h.journalFrom };
        return;
      }
      if (ended) throw new Error('line after the end');
      const line = v.parse(Line, raw);
      if ('accounts' in line) {
        seen.accounts += line.accounts.length;
        visitor.accounts(line.accounts.map(accountFromStored));
      } else if ('statuses' in line) {
        seen.statuses += line.statuses.length;
        visitor.statuses(line.statuses.map(([sig, slot, err]) => [sig, { slot, err: err as TxErrorJson | null }]));
      } else if ('signatures' in line) {
        const chunk = line.signatures.txs.map(([signature, slot, err, blockTime]) => {
          const known = txs.get(signature);
          if (known) return known;
          const entry = { signature, slot, err: err as TxErrorJson | null, blockTime };
          txs.set(signature, entry);
          return entry;
        });
        for (const [address, refs] of line.signatures.addresses) {
          seen.addresses++;
          visitor.signatures(
            address,
            refs.map((i) => {
              const entry = chunk[i];
              if (!entry) throw new Error(`signature index ${i} out of range`);
              return entry;
            }),
          );
        }
      } else {
        const want = line.end;
        if (want.accounts !== seen.accounts || want.statuses !== seen.statuses || want.addresses !== seen.addresses) {
          throw new Error(`counts ${JSON.stringify(seen)} do not match the end line ${JSON.stringify(want)}`);
        }
        ended = true;
      }
    } catch (err) {
      throw new DamagedSnapshot(path, (err as Error).message);
    }
  });
  if (count === 0 || header === null) throw new DamagedSnapshot(path, 'no header');
  if (!ended) throw new DamagedSnapshot(path, 'no end line');
  return header;
}

/** Removes snapshots that were being written when the process stopped (`snapshot.<n>.tmp`). */
export function removeUnfinishedSnapshots(dir: string): void {
  for (const name of readdirSync(dir)) if (/^snapshot\.\d+\.tmp$/.test(name)) unlinkSync(join(dir, name));
}

/** A snapshot being written beside the live one; nothing replaces the live one before `install()`. */
export class SnapshotWriter {
  private readonly counts = { accounts: 0, statuses: 0, addresses: 0 };
  private fd: number | null;

  private constructor(
    private readonly dir: string,
    private readonly tmp: string,
  ) {
    this.fd = openSync(tmp, 'w');
  }

  /** Starts `snapshot.<journalFrom>.tmp` with its header. */
  static create(dir: string, header: SnapshotHeader): SnapshotWriter {
    const w = new SnapshotWriter(dir, join(dir, `snapshot.${header.journalFrom}.tmp`));
    w.line({ format: FORMAT, slot: header.slot, journalFrom: header.journalFrom });
    return w;
  }

  private line(value: unknown): void {
    if (this.fd === null) throw new Error('snapshot writer is closed');
    writeSync(this.fd, `${JSON.stringify(value)}\n`);
  }

  /** One chunk of live account images. */
  accounts(images: AccountImage[]): void {
    if (images.length === 0) return;
    this.line({ accounts: images.map(storedAccount) });
    this.counts.accounts += images.length;
  }

  /** One chunk of signature statuses. */
  statuses(entries: [string, StatusEntry][]): void {
    if (entries.length === 0) return;
    this.line({ statuses: entries.map(([sig, st]) => [sig, st.slot, st.err]) });
    this.counts.statuses += entries.length;
  }

  /** One chunk of the signature index: addresses with their entries, oldest first. */
  signatures(lists: [string, readonly SignatureEntry[]][]): void {
    if (lists.length === 0) return;
    const at = new Map<SignatureEntry, number>();
    const txs: [string, number, TxErrorJson | null, number | null][] = [];
    const addresses = lists.map(([address, entries]): [string, number[]] => [
      address,
      entries.map((e) => {
        let i = at.get(e);
        if (i === undefined) {
          i = txs.push([e.signature, e.slot, e.err, e.blockTime]) - 1;
          at.set(e, i);
        }
        return i;
      }),
    ]);
    this.line({ signatures: { txs, addresses } });
    this.counts.addresses += lists.length;
  }

  /** Writes the end line and waits until the file is on disk (off the event loop). */
  async finish(): Promise<void> {
    this.line({ end: this.counts });
    if (this.fd === null) throw new Error('snapshot writer is closed');
    await fsyncAsync(this.fd);
  }

  /** Puts the finished snapshot in place of the live one (rename, then the directory synced). */
  install(): void {
    this.closeFile();
    renameSync(this.tmp, join(this.dir, SNAPSHOT));
    syncDir(this.dir);
  }

  /** Gives up: the unfinished file is removed (a crash instead leaves it for the next open to remove). */
  abandon(): void {
    this.closeFile();
    if (existsSync(this.tmp)) unlinkSync(this.tmp);
  }

  private closeFile(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}
