/**
 * The account streams' source (docs/exchange-api.md#account-stream): every event of an account is
 * appended to the account's log, which gives it the account's next `seq`, then handed to the
 * listeners (the native stream, the Binance user data stream) strictly in seq order per account.
 * The events of one commit are one batch, appended at once (one round trip); batches of one account
 * are appended one after the other and delivered in that order.
 *
 * A batch whose append fails (Redis down) is logged and left out (an append that landed but whose
 * answer was lost is in the log, so a replay has it). An event committed by a process that died before its append is not in
 * the log: the ledger and its journal stay the truth.
 *
 * @example
 *   const stream = new AccountStream(createMemoryAccountEventLogs(), log);
 *   engine.onEvent((e) => { const a = accountEventOfEngine(e); if (a) stream.queue(a); });
 *   stream.onEvent((e) => socketsOf(e.accountId).send(e));
 */
import type { AccountEventLogs } from '../../adapters/store/account-events/port.ts';
import type { EventLog } from '../../adapters/store/event-log/port.ts';
import type { Logger } from '../../kernel/log.ts';
import type { AccountEvent, AccountEventBody } from './account-events.ts';

/** Sequences and delivers account events. */
export class AccountStream {
  private readonly listeners = new Set<(e: AccountEvent) => void>();
  private readonly tails = new Map<string, Promise<void>>();
  /** highest seq delivered to listeners, per account */
  private readonly delivered = new Map<string, number>();
  private queued: AccountEventBody[] = [];

  constructor(
    private readonly logs: AccountEventLogs<AccountEventBody>,
    private readonly log: Logger,
  ) {}

  /** The log of one account (replays read it). */
  logOf(accountId: string): EventLog<AccountEventBody> {
    return this.logs.of(accountId);
  }

  /** Highest seq of the account delivered live by this process (0 before any); replays stop here and join live. */
  lastDelivered(accountId: string): number {
    return this.delivered.get(accountId) ?? 0;
  }

  /**
   * The account's last seq a connect starts from: every event up to it is in the log and none of
   * them will be delivered live by this process any more. Events still being appended here come
   * live; what the log holds beyond what this process delivered (a restart, another process on one
   * Redis) counts as delivered once nothing of this process is pending.
   */
  async caughtUp(accountId: string): Promise<number> {
    for (let attempt = 0; attempt < 50; attempt++) {
      const pending = this.tails.get(accountId);
      if (pending) {
        await pending;
        if (this.delivered.has(accountId)) return this.lastDelivered(accountId);
        continue;
      }
      const last = await this.logs.of(accountId).lastSeq();
      if (this.tails.has(accountId)) continue;
      this.delivered.set(accountId, Math.max(this.lastDelivered(accountId), last));
      return this.lastDelivered(accountId);
    }
    return this.lastDelivered(accountId);
  }

  /** Logs `events` (in order, per account) and delivers them once logged. */
  add(events: readonly AccountEventBody[]): void {
    const byAccount = new Map<string, AccountEventBody[]>();
    for (const e of events) byAccount.set(e.accountId, [...(byAccount.get(e.accountId) ?? []), e]);
    for (const [accountId, batch] of byAccount) {
      const previous = this.tails.get(accountId) ?? Promise.resolve();
      // one batch after the other per account, each in one append: seqs follow the order events came in
      const appendAll = async (): Promise<AccountEvent[]> => {
        try {
          return (await this.logs.appendAll(accountId, batch)) as AccountEvent[];
        } catch (err) {
          this.log.error({ err, accountId, lost: batch.length }, 'account events not logged: the stream misses them (the ledger has the change)');
          return [];
        }
      };
      const tail = previous.then(appendAll).then((sequenced) => this.deliver(accountId, sequenced));
      this.tails.set(accountId, tail);
      tail
        .finally(() => {
          if (this.tails.get(accountId) === tail) this.tails.delete(accountId);
        })
        .catch((err: unknown) => this.log.error({ err, accountId }, 'account events not delivered'));
    }
  }

  /** Adds `event` with the others queued in the same synchronous run (one commit's events, announced one by one, are one batch). */
  queue(event: AccountEventBody): void {
    if (this.queued.length === 0)
      queueMicrotask(() => {
        const batch = this.queued;
        this.queued = [];
        this.add(batch);
      });
    this.queued.push(event);
  }

  /** Listens to every delivered event; returns the unsubscribe. */
  onEvent(listener: (e: AccountEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves once every event added so far was delivered (or dropped). */
  async settled(): Promise<void> {
    await Promise.resolve();
    while (this.tails.size > 0) await Promise.allSettled([...this.tails.values()]);
  }

  /** Drops the account's log (the account was deleted). */
  async forget(accountId: string): Promise<void> {
    this.delivered.delete(accountId);
    await this.logs.delete(accountId);
  }

  private deliver(accountId: string, events: AccountEvent[]): void {
    for (const e of events) {
      this.delivered.set(accountId, Math.max(this.lastDelivered(accountId), e.seq));
      for (const l of this.listeners) {
        try {
          l(e);
        } catch (err) {
          this.log.warn({ err: err instanceof Error ? err.message : err, accountId, seq: e.seq }, 'account event not delivered to a listener');
        }
      }
    }
  }
}
