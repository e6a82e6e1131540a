/**
 * When the local chain folds its journal into a snapshot (docs/architecture.md#the-local-chain):
 * once the journal is long enough, at most one compaction at a time, and after a failed one not
 * again until more records came in. The compaction itself is in `compaction.ts`.
 */
import type { Logger } from '../../../kernel/log.ts';
import { compactChainState, type ChainState, type CompactionReport, type CompactionStep } from './compaction.ts';
import type { Journal } from './journal.ts';

/**
 * A compaction rewrites every live account, so it waits until the journal holds at least as many
 * account images as there are live accounts (and `compactEvery` records): a big chain is not
 * rewritten every `compactEvery` transactions — a compaction writes at most one account per
 * account the journal wrote — and a restart replays at most about one snapshot's worth of images.
 */
const COMPACT_AT_IMAGES_PER_ACCOUNT = 1;

/** What the schedule needs of its node. */
export interface CompactionScheduleOptions {
  dir: string;
  journal: Journal;
  state: ChainState;
  log: Logger;
  /** records the journal holds before a compaction is due */
  compactEvery: number;
  /** accounts written per slice of a compaction */
  slice: number;
  /** how many accounts are live now */
  liveCount(): number;
  /** true once the node is closed */
  stopped(): boolean;
  onStep?: (step: CompactionStep) => void | Promise<void>;
}

/** Runs the node's compactions, one at a time. */
export class CompactionSchedule {
  private compaction: Promise<CompactionReport | null> | null = null;
  /** after a failed compaction, the journal length the next try waits for (a full disk is not hammered) */
  private retryCompactionAt = 0;

  constructor(private readonly o: CompactionScheduleOptions) {}

  /** True while a compaction runs. */
  get running(): boolean {
    return this.compaction !== null;
  }

  /**
   * Folds the journal into a fresh snapshot while transactions keep landing (`compaction.ts`);
   * resolves with what it did, or null when the node was closed first. A call while one runs
   * shares it.
   */
  compact(): Promise<CompactionReport | null> {
    this.compaction ??= compactChainState({
      dir: this.o.dir,
      journal: this.o.journal,
      state: this.o.state,
      slice: this.o.slice,
      stopped: () => this.o.stopped(),
      onStep: this.o.onStep,
    })
      .then((report) => {
        if (report) this.o.log.info(report, 'journal compacted');
        return report;
      })
      .finally(() => {
        this.compaction = null;
      });
    return this.compaction;
  }

  /** Starts a compaction without waiting for it; a failure is logged and the next try waits for more records. */
  inBackground(): void {
    this.compact().catch((err: unknown) => {
      this.retryCompactionAt = this.o.journal.length + this.o.compactEvery;
      this.o.log.error({ err }, 'journal compaction failed; the journal keeps every record, and the next try waits for more of them');
    });
  }

  /** True when the journal is long enough for a compaction. */
  journalIsLong(): boolean {
    const records = this.o.journal.length;
    return records >= this.o.compactEvery && records >= this.retryCompactionAt && this.o.journal.images >= this.o.liveCount() * COMPACT_AT_IMAGES_PER_ACCOUNT;
  }
}
