/**
 * The account streams' source (docs/exchange-api.md#account-stream): every event of an account is
 * appended to the account's log, which gives it the account's next `seq`, then handed to the
 * listeners (the native stream, the Binance user data stream) in seq order per account.
 *
 * Only enrolled accounts are logged: an account is enrolled (for good, in the store) the first
 * time a native stream connects for it, so accounts nobody streams cost no log writes. The events
 * of a watched account (a user data subscription, which has no resume) that is not enrolled reach
 * the live listeners with `seq` 0; an account neither enrolled nor watched gets no events made at
 * all (`wants`). Other processes on one Redis see a new enrollment within `refreshMs`.
 *
 * Group commit: events are collected while one append is in flight and the next append takes all
 * of them, for every account at once (one Redis round trip, at most `MAX_EVENTS_PER_APPEND`
 * events), so logging costs about one command per burst of commits rather than one per commit.
 * Appends never overlap, so an account's seqs follow the order its events came in.
 *
 * An append that fails (Redis down) is logged and its events left out (one that landed but whose
 * answer was lost is in the log, so a replay has it). An event committed by a process that died
 * before its append is not in the log: the ledger and its journal stay the truth.
 *
 * @example
 *   const stream = new AccountStream(createMemoryAccountEventLogs(), log);
 *   engine.onEvent((e) => { const a = accountEventOfEngine(e); if (a) stream.add([a]); });
 *   stream.onEvent((e) => socketsOf(e.accountId).send(e));
 */
import type { AccountEventLogs } from '../../adapters/store/account-events/port.ts';
import type { EventLog } from '../../adapters/store/event-log/port.ts';
import type { Logger } from '../../kernel/log.ts';
import type { AccountEvent, AccountEventBody } from './account-events.ts';

/** Most events one append carries (a book that fills many resting orders is logged in several). */
export const MAX_EVENTS_PER_APPEND = 1_000;

/** Sequences and delivers account events. */
export class AccountStream {
  private readonly listeners = new Set<(e: AccountEvent) => void>();
  /** highest seq delivered to listeners, per account */
  private readonly delivered = new Map<string, number>();
  /** events not yet sent to the log, oldest first */
  private waiting: AccountEventBody[] = [];
  /** accounts with events in the append in flight */
  private readonly inFlight = new Set<string>();
  private flushing: Promise<void> | null = null;
  /** accounts whose events are logged (a stream connected for them once), as this process last read them */
  private readonly enrolled = new Set<string>();
  private enrolledVersion = -1;
  private refreshTimer: NodeJS.Timeout | null = null;
  /** events of accounts not enrolled: delivered (to the user data stream) without a log or a seq */
  private unlogged: AccountEvent[] = [];
  /** live listeners per account that need no log (user data subscriptions) */
  private readonly watchers = new Map<string, number>();

  constructor(
    private readonly logs: AccountEventLogs<AccountEventBody>,
    private readonly log: Logger,
  ) {}

  /** Reads the enrolled accounts, and reads them again every `refreshMs` when they changed (another process enrolled one). */
  async start(refreshMs = 1_000): Promise<void> {
    await this.refresh();
    this.refreshTimer = setInterval(() => {
      this.refresh().catch((err: unknown) => this.log.warn({ err: err instanceof Error ? err.message : err }, 'enrolled accounts not refreshed'));
    }, refreshMs);
    this.refreshTimer.unref();
  }

  /** Stops refreshing. */
  stop(): void {
    if (this.refreshTimer) clearInterval(this.refreshTimer);
    this.refreshTimer = null;
  }

  /** Enrolls an account (a stream connects for it): from now on its events are logged and numbered. */
  async enroll(accountId: string): Promise<void> {
    if (this.enrolled.has(accountId)) return;
    await this.logs.enroll(accountId);
    this.enrolled.add(accountId);
  }

  private async refresh(): Promise<void> {
    if ((await this.logs.enrolledVersion()) === this.enrolledVersion) return;
    const { version, accounts } = await this.logs.enrolled();
    for (const id of accounts) this.enrolled.add(id);
    this.enrolledVersion = version;
  }

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
   * them will be delivered live by this process any more. Events still on their way here come
   * live; what the log holds beyond what this process delivered (a restart, another process on one
   * Redis) counts as delivered once nothing of this account is on its way.
   */
  async caughtUp(accountId: string): Promise<number> {
    for (let attempt = 0; attempt < 50; attempt++) {
      if (this.pending(accountId)) {
        await this.flushing;
        if (this.delivered.has(accountId)) return this.lastDelivered(accountId);
        continue;
      }
      const last = await this.logs.of(accountId).lastSeq();
      if (this.pending(accountId)) continue;
      this.delivered.set(accountId, Math.max(this.lastDelivered(accountId), last));
      return this.lastDelivered(accountId);
    }
    return this.lastDelivered(accountId);
  }

  /** Whether anything takes the account's events (enrolled, or watched live): an event nobody takes is not even made. */
  wants(accountId: string): boolean {
    return this.enrolled.has(accountId) || this.watchers.has(accountId);
  }

  /** A live listener takes this account's events until the returned function is called. */
  watch(accountId: string): () => void {
    this.watchers.set(accountId, (this.watchers.get(accountId) ?? 0) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const n = (this.watchers.get(accountId) ?? 1) - 1;
      if (n > 0) this.watchers.set(accountId, n);
      else this.watchers.delete(accountId);
    };
  }

  /** Logs `events` (in order) with whatever else comes in the same run, and delivers them once logged. */
  add(events: readonly AccountEventBody[]): void {
    for (const e of events) {
      if (this.enrolled.has(e.accountId)) this.waiting.push(e);
      else if (this.watchers.has(e.accountId)) {
        if (this.unlogged.length === 0) queueMicrotask(() => this.deliver(this.unlogged.splice(0)));
        this.unlogged.push({ ...e, seq: 0 } as AccountEvent);
      }
    }
    // started after this synchronous run: one commit's events, announced one by one, go together
    if (this.waiting.length > 0) this.flushing ??= Promise.resolve().then(() => this.flush());
  }

  /** Listens to every delivered event; returns the unsubscribe. */
  onEvent(listener: (e: AccountEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves once every event added so far was delivered (or dropped). */
  async settled(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /** Drops the account's log (the account was deleted). */
  async forget(accountId: string): Promise<void> {
    this.delivered.delete(accountId);
    this.enrolled.delete(accountId);
    await this.logs.delete(accountId);
  }

  private pending(accountId: string): boolean {
    return this.inFlight.has(accountId) || this.waiting.some((e) => e.accountId === accountId);
  }

  /** Appends what is waiting, one append at a time, until nothing is. */
  private async flush(): Promise<void> {
    while (this.waiting.length > 0) {
      const events = this.waiting.splice(0, MAX_EVENTS_PER_APPEND);
      const groups = new Map<string, AccountEventBody[]>();
      for (const e of events) {
        const group = groups.get(e.accountId);
        if (group) group.push(e);
        else groups.set(e.accountId, [e]);
      }
      for (const id of groups.keys()) this.inFlight.add(id);
      let logged: AccountEvent[][] = [];
      try {
        logged = (await this.logs.appendMany([...groups].map(([accountId, batch]) => ({ accountId, events: batch })))) as AccountEvent[][];
      } catch (err) {
        this.log.error({ err, accounts: groups.size, lost: events.length }, 'account events not logged: the streams miss them (the ledger has the changes)');
      }
      this.inFlight.clear();
      for (const sequenced of logged) this.deliver(sequenced);
    }
    // nothing waits, in the same synchronous step as the check: the next add starts a new flush
    this.flushing = null;
  }

  private deliver(events: AccountEvent[]): void {
    for (const e of events) {
      if (e.seq > 0) this.delivered.set(e.accountId, Math.max(this.lastDelivered(e.accountId), e.seq));
      for (const l of this.listeners) {
        try {
          l(e);
        } catch (err) {
          this.log.warn({ err: err instanceof Error ? err.message : err, accountId: e.accountId, seq: e.seq }, 'account event not delivered to a listener');
        }
      }
    }
  }
}
