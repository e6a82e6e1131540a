/**
 * How a local chain is opened (docs/architecture.md#the-local-chain): where it keeps its journal
 * and snapshot, its slot length, when it compacts, the bounds of its signature index, and the
 * wall time its Clock follows.
 */
import type { Logger } from '../../../kernel/log.ts';
import type { CompactionStep } from './compaction.ts';
import type { SignatureIndexLimits } from './signature-index.ts';

/** How a local chain is opened. */
export interface LocalNodeOptions {
  /** directory holding the journal and snapshot */
  dir: string;
  genesisHash: string;
  log: Logger;
  /** slot length; 400 ms like a cluster */
  slotMs?: number;
  /** fold the journal into a snapshot once it holds this many records, and at least as many account images as there are accounts [2000] */
  compactEvery?: number;
  /** accounts written per slice of a compaction, one slice per event-loop turn [250] */
  compactionSlice?: number;
  /** called at each point of a compaction (tests stop there, or copy the data dir as a crash would leave it) */
  onCompactionStep?: (step: CompactionStep) => void | Promise<void>;
  /** bounds of the signature index (getSignaturesForAddress) */
  signatureIndex?: Partial<SignatureIndexLimits>;
  /** wall time the Clock sysvar follows, unix ms [Date.now]; benchmarks pin it to stage bets that expire together */
  now?: () => number;
}
