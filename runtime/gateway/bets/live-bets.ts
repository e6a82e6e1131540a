/**
 * Live bet series of the gateway (docs/architecture.md#live-bets): one `betMachine` actor per
 * series, with the runtime's effects injected. After every transition the series is committed
 * (`series-commits.ts`: snapshot, events and history records in one atomic write), and only then
 * are its events published: what clients saw is exactly what a restart resumes from. An actor
 * that fails is restarted from its latest snapshot with backoff, never left stopped.
 *
 * Live series are cheap: a bet waiting for its expiry is held as neither an actor nor its
 * snapshot, only as the few fields every settlement run reads (its committed snapshot is in the
 * store); the tick that reaches its expiry reads the snapshot back and rehydrates it
 * (docs/operations.md#memory).
 *
 * @example
 *   const bets = await LiveBets.boot({ store, effects, publish: (events) => stream.deliver(events) });
 *   bets.open({ id: '7', bettor, side: 'UP', amountUnits: '100000000', entryPrice: '15012345678', expireTime });
 *   bets.tick(Date.now()); // the settler ticks every SMART_SETTLE_INTERVAL_MS
 */
import * as v from 'valibot';
import { createActor, fromCallback, type AnyActorRef } from 'xstate';
import type { BetRecord } from '../../../adapters/store/bet-history/port.ts';
import type { Sequenced } from '../../../adapters/store/event-log/port.ts';
import type { SnapshotStore, StoredSnapshot } from '../../../adapters/store/snapshot/port.ts';
import type { RetryPolicy } from '../../../kernel/backoff.ts';
import { DEFAULT_RETRY, upgradeBetSnapshot } from '../../../machines/bet.ts';
import type { BetEmittedEvent } from '../../../machines/bet-events.ts';
import type { BetContext, BetInput } from '../../../machines/bet-types.ts';
import { clockMachine, type TickEvent } from '../../../machines/clock.ts';
import { componentLog, log as processLog, type Logger } from '../../../kernel/log.ts';
import type { BetEffects } from './effects.ts';
import type { BetTransition } from '../history/records.ts';
import { SeriesActors } from './series-actors.ts';
import { SeriesCommits } from './series-commits.ts';
import {
  buildSeriesMachine,
  currentOf,
  dormantOf,
  message,
  newSeries,
  persistedOf,
  StoredBet,
  summaryOf,
  waitingUntil,
  type Series,
  type SeriesSummary,
  type XstateClock,
} from './series.ts';

export type { SeriesSummary, XstateClock };

/** What the bet runtime is built from. */
export interface LiveBetsOptions {
  store: SnapshotStore<BetEmittedEvent, BetRecord>;
  effects: BetEffects;
  /** the bet history records a commit's transitions write (none when absent) */
  records?: (transitions: readonly BetTransition[]) => Promise<readonly BetRecord[]>;
  /** unix ms of a transition [Date.now] */
  now?: () => number;
  /** the outside world (the event stream); called with the events of each commit, seqs assigned */
  publish: (events: Array<Sequenced<BetEmittedEvent>>) => void;
  /** xstate clock for retry delays; only model tests pass one (production uses xstate's own timers) */
  clock?: XstateClock;
  /** delays of failed effects inside the machine */
  retry?: RetryPolicy;
  /** delays between attempts of a failed commit [250 ms doubling to 5 s] */
  commitRetry?: RetryPolicy;
  /** delays before restarting a failed actor [1 s doubling to 30 s] */
  restartBackoff?: RetryPolicy;
  /** whether a commit may be written now [always]; a leader passes its lease hold (see `SeriesCommits`) */
  mayCommit?: () => boolean;
  /** default: the process logger */
  log?: Logger;
  /** a bettor's address as a string the process already holds, to share it [the name itself] (docs/operations.md#memory) */
  shareName?: (name: string) => string;
}

/** Counters for operators (logs now, metrics later). */
export interface LiveBetStats {
  live: number;
  /** live series held as a snapshot only, waiting for their expiry */
  dormant: number;
  actorFailures: number;
  actorRestarts: number;
  commitFailures: number;
}

/** The live bet series of one process. */
export class LiveBets {
  private readonly live = new Map<string, Series>();
  private readonly log: Logger;
  private clockActors: AnyActorRef[] = [];
  private stopped = false;
  private readonly commits: SeriesCommits;
  private readonly actors: SeriesActors;

  private constructor(
    private readonly options: LiveBetsOptions,
    /** a follower's intake: series are handed off once committed */
    private readonly intakeOnly = false,
  ) {
    // which runtime a line comes from: the leader's actors, or a follower's intake of a bet placed on it
    this.log = componentLog(options.log ?? processLog, 'live-bets', { runtime: intakeOnly ? 'intake' : 'leader' });
    this.commits = new SeriesCommits({
      store: options.store,
      ...(options.records ? { records: options.records } : {}),
      publish: options.publish,
      log: this.log,
      ...(options.commitRetry ? { retry: options.commitRetry } : {}),
      stopped: () => this.stopped,
      ...(options.mayCommit ? { mayCommit: options.mayCommit } : {}),
      landed: (series, final) => this.landed(series, final),
    });
    this.actors = new SeriesActors({
      machine: buildSeriesMachine(options.effects, options.retry ?? DEFAULT_RETRY),
      commits: this.commits,
      log: this.log,
      ...(options.clock ? { clock: options.clock } : {}),
      now: options.now ?? Date.now,
      ...(options.restartBackoff ? { restartBackoff: options.restartBackoff } : {}),
      stopped: () => this.stopped,
      isLive: (series) => this.live.get(series.id) === series,
      load: (id) => options.store.load(id),
    });
  }

  /** A series' commits all landed: a final one leaves, an intake hands it to the leader, one that only waits sleeps. */
  private landed(series: Series, final: boolean): void {
    if (final) this.live.delete(series.id);
    else if (this.intakeOnly) this.handOff(series);
    else this.sleepIfWaiting(series);
  }

  /** Creates the runtime and rehydrates every live series of the store; series waiting on a retry retry at once. */
  static async boot(options: LiveBetsOptions): Promise<LiveBets> {
    const runtime = new LiveBets(options);
    await runtime.rehydrate();
    return runtime;
  }

  /**
   * A runtime that rehydrates nothing: a follower's intake (docs/operations.md#several-gateways). It starts
   * the series of a bet placed here, commits its first snapshot with `bet_open`, and lets it go; the leader's runtime takes the stored series over with `adoptStored`.
   */
  static intake(options: LiveBetsOptions): LiveBets {
    return new LiveBets(options, true);
  }

  private async rehydrate(): Promise<void> {
    for (const stored of await this.options.store.loadLive()) await this.rehydrateOne(stored);
  }

  private async rehydrateOne(stored: StoredSnapshot): Promise<void> {
    const { id, rev } = stored;
    const snapshot = upgradeBetSnapshot(stored.snapshot);
    const parsed = v.safeParse(StoredBet, snapshot);
    if (!parsed.success) {
      this.log.error({ seriesId: id }, 'stored bet snapshot is not a bet series; left in the store, not rehydrated');
      return;
    }
    if (parsed.output.status !== 'active') {
      this.log.warn({ seriesId: id, status: parsed.output.status }, 'stored bet snapshot is not active; marked final');
      await this.options.store.commit(id, { snapshot, final: true, events: [], rev: rev + 1 }).catch((err: unknown) => {
        this.log.error({ seriesId: id, err: message(err) }, 'could not mark the snapshot final; the next boot tries again');
      });
      return;
    }
    const waitsUntil = waitingUntil(snapshot);
    const series = this.track(id, rev, waitsUntil === null ? JSON.stringify(snapshot) : null);
    if (waitsUntil !== null)
      this.makeDormant(series, waitsUntil, snapshot); // its expiry's tick wakes it
    else this.actors.start(series);
    this.log.info({ seriesId: id, state: parsed.output.value, dormant: waitsUntil !== null }, 'bet series rehydrated');
  }

  /**
   * Takes over live series that other gateways committed to the shared store (bets placed on a
   * follower) and this runtime does not carry yet. Returns how many were adopted.
   */
  async adoptStored(): Promise<number> {
    if (this.stopped) return 0;
    let adopted = 0;
    for (const stored of await this.options.store.loadLive(new Set(this.live.keys()))) {
      if (this.live.has(stored.id) || this.stopped) continue;
      await this.rehydrateOne(stored);
      if (this.live.has(stored.id)) adopted++;
    }
    return adopted;
  }

  /** An intake runtime lets a series go once its commits have landed: the leader carries it from the store. */
  private handOff(series: Series): void {
    this.actors.release(series);
    this.live.delete(series.id);
    this.log.info({ seriesId: series.id }, 'bet series committed; handed to the leader');
  }

  /** Starts the series of a freshly placed bet; its actor emits `bet_open`. Returns the series id. */
  open(input: BetInput): string {
    if (this.live.has(input.id)) throw new Error(`bet series ${input.id} is already live`);
    this.actors.open(this.track(input.id, 0, null), input);
    return input.id;
  }

  private track(id: string, rev: number, latest: string | null): Series {
    const series = newSeries(id, rev, latest);
    this.live.set(id, series);
    return series;
  }

  /** A series whose committed state only waits for its expiry gives its actor and its snapshot up (the store has it). */
  private sleepIfWaiting(series: Series): void {
    if (!series.actor || series.latest === null || this.stopped) return;
    const snapshot = JSON.parse(series.latest) as unknown;
    const until = waitingUntil(snapshot);
    if (until === null || until <= Date.now()) return;
    const actor = series.actor;
    series.actor = null; // first: the stopping actor's last snapshot is not a transition to commit
    this.makeDormant(series, until, snapshot);
    actor.stop();
  }

  /** Keeps of a series waiting until `until` (unix ms) only what is read of it while it waits. */
  private makeDormant(series: Series, until: number, snapshot: unknown): void {
    series.dormantUntil = until;
    series.dormant = dormantOf(series.id, snapshot, this.options.shareName ?? ((name) => name));
    series.latest = null;
  }

  /** Wakes series waiting in a retry backoff (all, or one): they retry at once. Returns how many were sent RESUME. */
  resume(seriesId?: string): number {
    let woken = 0;
    for (const series of seriesId === undefined ? this.live.values() : [this.live.get(seriesId)]) {
      if (!series?.actor) continue;
      series.actor.send({ type: 'RESUME' });
      woken++;
    }
    return woken;
  }

  /**
   * An operator's retry of one series (`npm run ops -- retry <id>`): a series waiting in an effect's
   * retry backoff retries at once, an actor waiting for its restart is restarted now. A series that
   * only waits for its expiry is left waiting.
   */
  retryNow(seriesId: string): 'resumed' | 'restarted' | 'waiting_for_expiry' | 'not_live' {
    const series = this.live.get(seriesId);
    if (!series || this.stopped) return 'not_live';
    if (this.actors.restartNow(series)) return 'restarted';
    if (!series.actor) return 'waiting_for_expiry';
    series.actor.send({ type: 'RESUME' });
    return 'resumed';
  }

  /** Forwards a clock tick (unix ms) to every live series, waking dormant ones whose expiry it reached; expired bets start settling. */
  tick(now: number): void {
    for (const series of this.live.values()) this.tickChain(series, now);
  }

  /**
   * `tick`, handing the event loop back every `slice` series: with thousands of bets expiring
   * together, the first ones' closes go out while the rest are still being ticked.
   */
  async tickInSlices(now: number, slice = 200): Promise<void> {
    let n = 0;
    for (const series of [...this.live.values()]) {
      this.tickChain(series, now);
      if (++n % slice === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  private tickChain(series: Series, now: number): void {
    if (!series.actor && series.dormantUntil !== null && series.dormantUntil <= now && !series.restartTimer) this.actors.startOrSupervise(series, now);
    series.actor?.send({ type: 'TICK', now });
  }

  /** Starts a settlement clock of its own: `tick(now())` every `intervalMs` (tests; the gateway's Settler ticks). */
  startClock(intervalMs: number, now: () => number = Date.now): void {
    const relay = createActor(
      fromCallback<TickEvent>(({ receive }) => {
        receive((event) => this.tick(event.now));
      }),
    ).start();
    const clock = createActor(clockMachine, {
      input: { intervalMs, target: relay, now },
      ...(this.options.clock ? { clock: this.options.clock } : {}),
    }).start();
    this.clockActors.push(relay, clock);
  }

  /** Whether a series with this id is live here. */
  has(seriesId: string): boolean {
    return this.live.has(seriesId);
  }

  /** Ids of the live series (also those waiting for a restart or for their final commit). */
  seriesIds(): string[] {
    return [...this.live.keys()];
  }

  /** What is read of a live series on every settlement run (state value, bet in play, bettor, expiry), without reading the store; undefined when not live. */
  summaryOf(seriesId: string): SeriesSummary | undefined {
    const series = this.live.get(seriesId);
    return series ? summaryOf(series) : undefined;
  }

  /** The context of a live series: its actor's, or its latest snapshot's while it has no actor (a dormant one's is read from the store). */
  async contextOf(seriesId: string): Promise<BetContext | undefined> {
    return (await this.snapshotOf(seriesId))?.context;
  }

  /** The persisted snapshot of a live series, as it would be saved (a dormant one's: as the store has it); undefined when not live. */
  async persistedSnapshotOf(seriesId: string): Promise<unknown> {
    const series = this.live.get(seriesId);
    if (!series) return undefined;
    return persistedOf(series) ?? (series.dormant ? upgradeBetSnapshot(await this.options.store.load(seriesId)) : undefined);
  }

  /** The current snapshot of a live series (state value and context): its actor's, or the latest committed one while it has none (a dormant one's is read from the store). */
  async snapshotOf(seriesId: string): Promise<{ value: unknown; context: BetContext } | undefined> {
    const series = this.live.get(seriesId);
    if (!series) return undefined;
    const now = currentOf(series);
    if (now || !series.dormant) return now;
    return (await this.persistedSnapshotOf(seriesId)) as { value: unknown; context: BetContext } | undefined;
  }

  /** Counters for operators. */
  stats(): LiveBetStats {
    let dormant = 0;
    for (const c of this.live.values()) if (c.dormantUntil !== null && !c.actor) dormant++;
    return { live: this.live.size, dormant, ...this.actors.counters, commitFailures: this.commits.failures };
  }

  /** Resolves once every commit queued so far has landed (waits through retries), and every dormant series being woken has its actor. */
  async settled(): Promise<void> {
    for (;;) {
      await this.commits.settled(() => this.live.values());
      const waking = [...this.live.values()].map((s) => s.waking).filter((w): w is Promise<void> => w !== null);
      if (waking.length === 0) return;
      await Promise.all(waking);
    }
  }

  /** Resolves once the series' queued commits have landed, or after `timeoutMs` (false then). */
  committed(seriesId: string, timeoutMs: number): Promise<boolean> {
    return this.commits.committed(() => this.live.get(seriesId), timeoutMs);
  }

  /** Stops the clock and every actor (pending effects are abandoned, snapshots stay live); waits up to `graceMs` for commits. */
  async stop(graceMs = 3_000): Promise<void> {
    for (const ref of this.clockActors) ref.stop();
    this.clockActors = [];
    for (const series of this.live.values()) this.actors.release(series);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.settled(), new Promise<void>((r) => (timer = setTimeout(r, graceMs)))]);
    clearTimeout(timer);
    this.stopped = true;
  }
}
