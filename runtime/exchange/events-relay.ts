/**
 * The relay of the exchange's ledger events (docs/operations.md#exchange-events-outbox): the journal
 * entries and fills an account's commits wrote are read back from the ledger after the account's
 * relay cursor (`LedgerOutbox`) and published in commit order, each with a dedup id derived from
 * the entry (the journal entry's id; the fill's order id and level), so a re-publish after a crash
 * is stored once by the stream. The cursor moves only after the stream acknowledged. A commit here
 * kicks its account; at start, and every `sweepMs`, every account is looked at (an account whose
 * process died before relaying). While publishing fails, the account is retried every second.
 *
 * @example
 *   const relay = new LedgerEventsRelay({ outbox: store.outbox, accountIds: () => store.listAccountIds(), publish, log });
 *   relay.start();
 *   relay.kick(accountId); // after a commit of that account
 */
import type { LedgerOutbox, OutboxPage, RelayCursor } from '../../adapters/store/exchange/port.ts';
import type { Logger } from '../../kernel/log.ts';
import { fillEvents, journalEvents, type ExchangeEvent } from './events.ts';
import { setTimeout as sleep } from 'node:timers/promises';

/** One event to publish, with its dedup id and the cursor once it is out (null: within a commit, not a point to resume from). */
export interface OutboxEvent {
  event: ExchangeEvent;
  msgId: string;
  cursor: RelayCursor | null;
}

/**
 * The events of one outbox page, in commit order: a TRADE entry of an order record is preceded
 * by that order's fills (as the commit announced them: fills, then journal entries).
 */
export function outboxEvents(accountId: string, page: OutboxPage): OutboxEvent[] {
  const out: OutboxEvent[] = [];
  let taken = 0;
  for (const { id, entry } of page.journal) {
    const order = page.orders[taken];
    if (entry.type === 'TRADE' && order?.orderId === entry.orderId) {
      fillEvents(accountId, order).forEach((event, level) => out.push({ event, msgId: `${accountId}/fill/${order.orderId}/${level}`, cursor: null }));
      taken++;
    }
    const [event] = journalEvents(accountId, [entry]) as [ExchangeEvent];
    out.push({ event, msgId: `${accountId}/journal/${id}`, cursor: { journal: id, orders: page.from.orders + taken } });
  }
  return out;
}

export interface LedgerEventsRelayDeps {
  outbox: LedgerOutbox;
  /** every account (looked at on start and every sweep) */
  accountIds: () => Promise<string[]>;
  /** publishes one event with its dedup id; resolves once the stream stored it (or knew it) */
  publish: (event: ExchangeEvent, msgId: string) => Promise<void>;
  log: Logger;
  /** how often every account is looked at [60 s] */
  sweepMs?: number;
}

const PAGE = 200;
const RETRY_MS = 1_000;
const PARALLEL = 16;
const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Relays each account's committed events, accounts in parallel, each account's in order. */
export class LedgerEventsRelay {
  private readonly dirty = new Set<string>();
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private failing = false;
  private lastSweep = -Infinity;

  constructor(private readonly deps: LedgerEventsRelayDeps) {}

  start(): void {
    if (this.loop) return;
    this.running = true;
    this.loop = this.run();
  }

  /** An account committed here: relay it now. */
  kick(accountId: string): void {
    this.dirty.add(accountId);
    this.wake?.();
  }

  /** Whether nothing kicked is waiting (tests, shutdown). */
  get idle(): boolean {
    return this.dirty.size === 0;
  }

  /** Stops after relaying what is pending, within `graceMs`. */
  async stop(graceMs = 2_000): Promise<void> {
    if (!this.loop) return;
    const until = Date.now() + graceMs;
    while (this.dirty.size > 0 && !this.failing && Date.now() < until) await sleep(20);
    this.running = false;
    this.wake?.();
    await this.loop;
    this.loop = null;
  }

  private pause(ms: number): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  private async run(): Promise<void> {
    const { log } = this.deps;
    while (this.running) {
      try {
        if (Date.now() - this.lastSweep >= (this.deps.sweepMs ?? 60_000)) {
          for (const id of await this.deps.accountIds()) this.dirty.add(id);
          this.lastSweep = Date.now();
        }
        const batch = [...this.dirty];
        for (let i = 0; i < batch.length && this.running; i += PARALLEL) {
          const outcomes = await Promise.allSettled(batch.slice(i, i + PARALLEL).map((id) => this.drain(id)));
          const failed = outcomes.find((o) => o.status === 'rejected');
          if (failed) throw failed.reason;
        }
        if (this.failing) log.info('exchange event stream reachable again; events relayed');
        this.failing = false;
        if (this.dirty.size === 0) await this.pause(Math.max(0, (this.deps.sweepMs ?? 60_000) - (Date.now() - this.lastSweep)));
      } catch (err) {
        if (!this.failing) log.error({ err: message(err) }, 'exchange events not relayed; retrying');
        this.failing = true;
        await this.pause(RETRY_MS);
      }
    }
  }

  /** Relays everything the account committed after its cursor; it stays dirty when publishing fails. */
  private async drain(accountId: string): Promise<void> {
    const { outbox, publish } = this.deps;
    this.dirty.delete(accountId);
    try {
      for (;;) {
        const page = await outbox.read(accountId, PAGE);
        if (!page || page.journal.length === 0) return;
        let done: RelayCursor | null = null;
        try {
          for (const e of outboxEvents(accountId, page)) {
            await publish(e.event, e.msgId);
            if (e.cursor) done = e.cursor;
          }
        } finally {
          if (done) await outbox.advance(accountId, done);
        }
        if (page.journal.length < PAGE) return;
      }
    } catch (err) {
      this.dirty.add(accountId);
      throw err;
    }
  }
}
