/**
 * Logs dropped (malformed) market messages without flooding: the first drop is logged at once,
 * later ones at most once per interval with how many were dropped in between. A source that
 * changes its format would otherwise write dozens of lines a second (docs/operations.md#market-data-on-nats).
 *
 * @example
 *   const drops = new DroppedLog(log, 'malformed market message dropped');
 *   drops.record({ subject, reason });
 */
import type { Logger } from '../../kernel/log.ts';
import { systemClock, type Clock } from './clock.ts';

/** Counts drops and logs them at a bounded rate. */
export class DroppedLog {
  /** drops since construction */
  total = 0;
  private unlogged = 0;
  private lastLoggedAt = -Infinity;

  constructor(
    private readonly log: Logger,
    private readonly message: string,
    private readonly intervalMs = 10_000,
    private readonly clock: Pick<Clock, 'now'> = systemClock,
  ) {}

  /** Records one drop; `fields` (reason, payload preview) describe it when it is the one logged. */
  record(fields: Record<string, unknown>): void {
    this.total++;
    const now = this.clock.now();
    if (now - this.lastLoggedAt < this.intervalMs) {
      this.unlogged++;
      return;
    }
    this.log.warn({ ...fields, droppedSinceLastReport: this.unlogged + 1, droppedTotal: this.total }, this.message);
    this.lastLoggedAt = now;
    this.unlogged = 0;
  }
}
