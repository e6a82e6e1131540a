/**
 * What a restart of the local chain reads, and in which order: leftovers of an interrupted
 * compaction are removed; the snapshot (`snapshot.jsonl`) is read into the node, or else a legacy
 * `snapshot.bin` (LiteSVM's own bytes, see `legacy-snapshot.ts`); then the journal segments the
 * snapshot does not cover are replayed (`compaction.ts` says why this order restores the state).
 *
 * @example
 *   const loaded = restoreChainState(dir, journal, { images, status, signatures, legacy, record });
 *   // loaded.slot: the highest slot on disk; loaded.source: where the state came from
 */
import type { Journal, JournalRecord, StatusEntry } from './journal.ts';
import { legacyAddresses, readLegacySnapshot, removeLegacySnapshot } from './legacy-snapshot.ts';
import type { SignatureEntry } from './signature-index.ts';
import { readSnapshot, removeUnfinishedSnapshots } from './snapshot-file.ts';
import type { AccountImage } from './stored-account.ts';
import type { RawSvm } from './svm.ts';

/** Where the restored state goes. */
export interface RestoreTarget {
  /** account images to set, executables after everything else in the same call */
  images(images: AccountImage[]): void;
  status(signature: string, status: StatusEntry): void;
  signatures(address: string, entries: SignatureEntry[]): void;
  /** a legacy snapshot's whole LiteSVM, and the addresses of the accounts it holds */
  legacy(svm: RawSvm, addresses: string[]): void;
  /** one journal record, in order */
  record(record: JournalRecord): void;
}

/** What was on disk. */
export interface Restored {
  /** the highest slot the snapshot or the journal names (0 on a fresh directory) */
  slot: number;
  replayed: number;
  source: 'snapshot' | 'legacy snapshot' | 'journal';
}

/** Reads the chain's state of `dir` into `target` and leaves `journal` open for appends. */
export function restoreChainState(dir: string, journal: Journal, target: RestoreTarget): Restored {
  removeUnfinishedSnapshots(dir);
  let slot = 0;
  let from = 0;
  let source: Restored['source'] = 'journal';
  const executables: AccountImage[] = []; // each needs its programdata in place first
  const header = readSnapshot(dir, {
    accounts: (images) => {
      executables.push(...images.filter((a) => a.executable));
      target.images(images.filter((a) => !a.executable));
    },
    statuses: (entries) => {
      for (const [sig, st] of entries) target.status(sig, st);
    },
    signatures: (address, entries) => target.signatures(address, entries),
  });
  if (header) {
    target.images(executables);
    slot = header.slot;
    from = header.journalFrom;
    source = 'snapshot';
    removeLegacySnapshot(dir); // a crash came between installing the snapshot and removing this one
  } else {
    const legacy = readLegacySnapshot(dir);
    if (legacy) {
      target.legacy(legacy.svm, legacyAddresses(legacy.svm));
      for (const [sig, st] of legacy.statuses) target.status(sig, st);
      slot = legacy.slot;
      source = 'legacy snapshot';
    }
  }
  const replayed = journal.replay(from, (rec) => {
    target.record(rec);
    slot = Math.max(slot, rec.slot);
  });
  return { slot, replayed, source };
}
