/**
 * Who hears of a bet commit (docs/architecture.md#stores): once a series' snapshot, events and
 * history records are committed, the committed events (with their seqs) go to each listener in
 * the order they were added — the log, the metrics, the reclaimer, the event stream — and a
 * listener that throws is logged without keeping the others from hearing.
 *
 * @example
 *   const listeners = new CommitListeners(log);
 *   listeners.add('metrics', (events) => metrics.betEvents(events));
 *   LiveBets.boot({ ...options, publish: listeners.publish });
 */
import type { Sequenced } from '../../../adapters/store/event-log/port.ts';
import type { Logger } from '../../../kernel/log.ts';
import type { BetEmittedEvent } from '../../../machines/bet-events.ts';

/** What a listener is given: the events of one commit, in commit order. */
export type CommitListener = (events: ReadonlyArray<Sequenced<BetEmittedEvent>>) => void;

/** The listeners of bet commits, in order. */
export class CommitListeners {
  private readonly listeners: Array<{ name: string; hear: CommitListener }> = [];

  constructor(private readonly log: Logger) {}

  /** Adds a listener after those already added. */
  add(name: string, hear: CommitListener): void {
    this.listeners.push({ name, hear });
  }

  /** Hands the events of a commit to every listener, in order (`LiveBetsOptions.publish`). */
  readonly publish = (events: Array<Sequenced<BetEmittedEvent>>): void => {
    for (const { name, hear } of this.listeners) {
      try {
        hear(events);
      } catch (err) {
        this.log.error({ err, listener: name, seqs: events.map((e) => e.seq) }, 'a listener of bet commits failed');
      }
    }
  };
}
