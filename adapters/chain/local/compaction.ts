/**
 * Folding the local chain's journal into a fresh snapshot while transactions keep landing.
 *
 * 1. `journal.rotate()` — new records go to a new segment N; everything before is on disk in
 *    older segments. This is the rotation point T0.
 * 2. The snapshot is written in slices (a chunk of accounts, then a turn of the event loop for
 *    transactions), reading each account's image as it is when its slice is written: every part
 *    of it shows the state at some moment at or after T0, not all the same moment.
 * 3. It is synced, renamed over `snapshot.jsonl`, and the directory synced.
 * 4. The segments before N (and a legacy `snapshot.bin`) are deleted.
 *
 * Why such a snapshot plus segment N (and later ones) restores the state exactly: an account
 * image in the journal is the account's whole state, not a change to it, so replaying overwrites
 * rather than adds. Take any account. If a transaction after T0 wrote it, segment N holds that
 * write, and its last write wins over whatever the snapshot caught. If none did, its state never
 * changed after T0, so the snapshot caught exactly that state (an account deleted before T0 is in
 * no slice, and stays absent). Segments before N are not replayed over it: the snapshot names N
 * as the first segment it does not cover. Statuses are keyed by signature, so their replay is
 * idempotent. An address's list in the signature index, caught at some moment, holds its
 * transactions up to then (they are published in commit order), so the replay skips those the
 * list holds and appends the rest (`SignatureIndex.add`).
 *
 * Crash safety (SIGKILL at any point): until step 3's rename the old snapshot and every segment
 * from its `journalFrom` on are untouched, and the unfinished `snapshot.<N>.tmp` is ignored (and
 * removed) by the next open. After the rename the new snapshot names `journalFrom: N`, and
 * segments before N that are still there are skipped and deleted. Nothing in between loses a
 * record.
 */
import type { Journal, StatusEntry } from './journal.ts';
import { removeLegacySnapshot } from './legacy-snapshot.ts';
import type { SignatureIndex } from './signature-index.ts';
import { SnapshotWriter } from './snapshot-file.ts';
import type { AccountImage } from './stored-account.ts';

/** What a compaction reads: the node's live state. */
export interface ChainState {
  readonly slot: number;
  /** every account that exists now */
  liveAddresses(): string[];
  /** an account as it is now; null when it does not exist */
  account(address: string): AccountImage | null;
  /** every signature status known now */
  statusEntries(): [string, StatusEntry][];
  readonly signatureIndex: SignatureIndex;
}

/** The points of a compaction (a test stops there, or copies the data dir as a crash would leave it). */
export type CompactionStep = 'rotated' | 'snapshot-started' | 'snapshot-written' | 'snapshot-installed' | 'done';

/** How a compaction runs. */
export interface CompactionOptions {
  dir: string;
  journal: Journal;
  state: ChainState;
  /** accounts (or statuses, or indexed addresses) per slice; one slice per event-loop turn */
  slice: number;
  /** true once the node is closed: the compaction stops where it is */
  stopped(): boolean;
  onStep?: (step: CompactionStep) => void | Promise<void>;
}

/** What a finished compaction did. */
export interface CompactionReport {
  accounts: number;
  statuses: number;
  addresses: number;
  /** records folded (the segments dropped) */
  records: number;
  ms: number;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Runs one compaction (see the file comment); null when the node was closed before it finished. */
export async function compactChainState(o: CompactionOptions): Promise<CompactionReport | null> {
  const started = performance.now();
  const records = o.journal.length;
  const from = o.journal.rotate();
  // One turn of the event loop: the commits whose records the rotation made durable publish their
  // statuses and index entries (microtasks) before anything is read for the snapshot.
  await nextTurn();
  await o.onStep?.('rotated');
  if (o.stopped()) return null;
  // what exists now; anything created from here on is in segment `from`
  const addresses = o.state.liveAddresses();
  const statuses = o.state.statusEntries();
  const indexed = o.state.signatureIndex.addresses();
  const writer = SnapshotWriter.create(o.dir, { slot: o.state.slot, journalFrom: from });
  try {
    let accounts = 0;
    for (let i = 0; i < addresses.length; i += o.slice) {
      const images = addresses.slice(i, i + o.slice).flatMap((a) => o.state.account(a) ?? []);
      writer.accounts(images);
      accounts += images.length;
      if (i === 0) await o.onStep?.('snapshot-started');
      await nextTurn();
      if (o.stopped()) return abandon(writer);
    }
    for (let i = 0; i < statuses.length; i += o.slice * 4) {
      writer.statuses(statuses.slice(i, i + o.slice * 4));
      await nextTurn();
      if (o.stopped()) return abandon(writer);
    }
    for (let i = 0; i < indexed.length; i += o.slice) {
      writer.signatures(indexed.slice(i, i + o.slice).map((a) => [a, o.state.signatureIndex.of(a)]));
      await nextTurn();
      if (o.stopped()) return abandon(writer);
    }
    await writer.finish();
    await o.onStep?.('snapshot-written');
    if (o.stopped()) return abandon(writer);
    writer.install();
    await o.onStep?.('snapshot-installed');
    if (o.stopped()) return null; // the next open skips and deletes the covered segments
    o.journal.dropBefore(from);
    removeLegacySnapshot(o.dir);
    await o.onStep?.('done');
    return { accounts, statuses: statuses.length, addresses: indexed.length, records, ms: Math.round(performance.now() - started) };
  } catch (err) {
    writer.abandon();
    throw err;
  }
}

function abandon(writer: SnapshotWriter): null {
  writer.abandon();
  return null;
}
