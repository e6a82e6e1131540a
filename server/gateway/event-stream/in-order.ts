/**
 * Live publication strictly in seq order (docs/gateway-api.md#events): events come in from
 * several places (this process's appends, a shared log's follower, a commit's own events) and in
 * any order; each is published once, after its predecessor. One whose predecessor is late waits
 * for it; after `gapFillMs` the missing ones are read from the log (an append whose answer was
 * lost, a follower that fell behind).
 *
 * A seq is skipped only when the log was read past it and does not hold it (an event that cannot
 * be decoded, a write that never landed): a read that stops short of the hole (a page cut by its
 * time limit, a replica behind) proves nothing, and the gap is read again later. Events that
 * arrive while a read is in flight are published as they come; the read then adds only what is
 * still missing.
 *
 * @example
 *   const order = new InOrder({ read: (since, n) => log.readSince(since, n), publish: (e) => app.publish(TOPIC, JSON.stringify(e)), logger, gapFillMs: 500, pageSize: 500 });
 *   order.deliver([{ seq: 2, ... }]); // waits for seq 1
 *   order.deliver([{ seq: 1, ... }]); // publishes 1, then 2
 */
import type { LoggedEvent, Sequenced } from '../../../adapters/store/event-log/port.ts';
import type { Logger } from '../../../kernel/log.ts';

/** What the publisher reads from and publishes to. */
export interface InOrderOptions<E extends LoggedEvent> {
  /** the log's events after `since`, oldest first, at most `limit` */
  read(since: number, limit: number): Promise<ReadonlyArray<Sequenced<E>>>;
  publish(event: Sequenced<E>): void;
  logger: Logger;
  gapFillMs: number;
  pageSize: number;
}

/** Publishes delivered events once each, in seq order. */
export class InOrder<E extends LoggedEvent> {
  /** the highest seq published */
  last = 0;
  /** delivered events whose predecessors have not been published yet, by seq */
  private readonly waiting = new Map<number, Sequenced<E>>();
  private gapTimer: NodeJS.Timeout | null = null;

  constructor(private readonly o: InOrderOptions<E>) {}

  /** Takes events already in the log (with their seqs); publishes what now follows `last` without a gap. */
  deliver(events: ReadonlyArray<Sequenced<E>>): void {
    for (const e of events) if (e.seq > this.last) this.waiting.set(e.seq, e);
    this.publishWaiting();
  }

  /** The log started over (its store lost its data): numbering follows it from `seq`; what waited is dropped. */
  startOver(seq: number): void {
    this.last = seq - 1;
    this.waiting.clear();
  }

  /** Stops the gap timer (shutdown). */
  stop(): void {
    if (this.gapTimer) clearTimeout(this.gapTimer);
    this.gapTimer = null;
  }

  private publishWaiting(): void {
    for (let next = this.waiting.get(this.last + 1); next; next = this.waiting.get(this.last + 1)) {
      this.waiting.delete(next.seq);
      this.last = next.seq;
      this.o.publish(next);
    }
    if (this.waiting.size > 0) {
      this.gapTimer ??= setTimeout(() => {
        this.fillGap().catch((err: unknown) => this.o.logger.error({ err }, 'filling a gap in the event stream failed'));
      }, this.o.gapFillMs);
    } else this.stop();
  }

  private async fillGap(): Promise<void> {
    this.gapTimer = null;
    if (this.waiting.size === 0) return;
    const from = this.last;
    let page: ReadonlyArray<Sequenced<E>>;
    try {
      page = await this.o.read(from, this.o.pageSize);
    } catch (err) {
      this.o.logger.warn({ err: err instanceof Error ? err.message : err, from }, 'event log unreadable while filling a gap; trying again');
      this.publishWaiting();
      return;
    }
    for (const e of page) if (e.seq > this.last && !this.waiting.has(e.seq)) this.waiting.set(e.seq, e);
    // what waited may all have been published while the read was in flight
    if (this.waiting.size > 0 && !this.waiting.has(this.last + 1)) {
      const lowest = Math.min(...this.waiting.keys());
      if (page.some((e) => e.seq >= lowest)) {
        this.o.logger.warn({ missing: [this.last + 1, lowest - 1] }, 'events missing from the log are skipped');
        this.last = lowest - 1;
      }
    }
    this.publishWaiting();
  }
}
