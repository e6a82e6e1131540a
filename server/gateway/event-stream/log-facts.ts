/**
 * What a resume message says about the event log, held in memory (docs/architecture.md#resumes-from-memory):
 * its epoch and its oldest held seq, read once at start and again every `refreshMs` (one read
 * whatever the number of sockets), so a resume costs the log no round trip. A refresh that fails
 * keeps what was known (the log is away: the epoch of a history does not change while it is).
 *
 * @example
 *   const facts = new LogFacts(log, logger, 2_000);
 *   await facts.start();
 *   facts.epoch; facts.firstSeq;
 */
import type { EventLog, LoggedEvent } from '../../../adapters/store/event-log/port.ts';
import type { Logger } from '../../../kernel/log.ts';

/** The log's epoch and oldest seq, refreshed in the background. */
export class LogFacts<E extends LoggedEvent> {
  /** the epoch last read ('' until the first read) */
  epoch = '';
  /** the oldest seq the log held at the last read */
  firstSeq = 1;
  private timer: NodeJS.Timeout | null = null;
  private refreshing: Promise<void> | null = null;
  /** told when the epoch read differs from the one held (the log's history was lost and started over) */
  onEpochChange: ((from: string, to: string) => void) | undefined;

  constructor(
    private readonly log: EventLog<E>,
    private readonly logger: Logger,
    private readonly refreshMs: number,
  ) {}

  /** Reads the facts (throws when the log does not answer), then keeps them fresh until `stop`. */
  async start(): Promise<void> {
    await this.refresh();
    this.timer ??= setInterval(() => {
      this.refresh().catch((err: unknown) =>
        this.logger.debug({ err: err instanceof Error ? err.message : err }, 'event log facts not refreshed (the log did not answer); the last ones are kept'),
      );
    }, this.refreshMs);
    this.timer.unref();
  }

  /** Reads the facts now (one read in flight at a time). */
  refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        const [epoch, first] = await Promise.all([this.log.epoch(), this.log.firstSeq()]);
        if (this.epoch !== '' && epoch !== this.epoch) this.onEpochChange?.(this.epoch, epoch);
        this.epoch = epoch;
        this.firstSeq = first;
      } finally {
        this.refreshing = null;
      }
    })();
    return this.refreshing;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
