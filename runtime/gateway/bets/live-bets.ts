/**
 * Live bet series of the gateway: one `betMachine` actor per series, with the runtime's effects
 * injected (docs/architecture.md#live-bets). After every transition the series' snapshot, the events the
 * transition emitted and the bet history records they change (`bet-records.ts`) are committed to
 * the store in one atomic write (snapshot, live set, event log, history), and only then handed to
 * `publish` with their seqs: what clients saw is exactly what a restart resumes from, and a crash
 * can never keep a final snapshot without its `bet_closed` or its history record.
 *
 * Nothing is left stuck (docs/operations.md#recover: a failed actor restarts from its last snapshot):
 * - a commit that fails (Redis down) is retried with backoff until it lands, the same commit
 *   with the same rev, so a retry whose first answer was lost never appends events twice;
 *   transitions made meanwhile are coalesced into the next commit;
 * - an actor that fails is restarted from its latest snapshot with backoff, never left stopped.
 *
 * Live series are cheap (no actor stays resident while it only waits): a bet waiting for its expiry
 * is held as its committed snapshot (a few hundred bytes of JSON), not as an actor; the tick that
 * reaches its expiry rehydrates it and it settles from there.
 *
 * @example
 *   const bets = await LiveBets.boot({ store, effects, publish: (events) => stream.deliver(events) });
 *   bets.open({ id: '7', bettor, side: 'UP', amountUnits: '100000000', entryPrice: '15012345678', expireTime });
 *   bets.tick(Date.now()); // the settler ticks every SMART_SETTLE_INTERVAL_MS
 */
import * as v from 'valibot';
import { createActor, fromCallback, type Actor, type ActorOptions, type AnyActorLogic, type AnyActorRef, type Snapshot } from 'xstate';
import type { BetRecord } from '../../../adapters/store/bet-history/port.ts';
import type { Sequenced } from '../../../adapters/store/event-log/port.ts';
import type { SnapshotStore, StoredSnapshot } from '../../../adapters/store/snapshot/port.ts';
import { betMachine, DEFAULT_RETRY, retryDelayMs, upgradeBetSnapshot, type RetryPolicy } from '../../../machines/bet.ts';
import type { BetEmittedEvent } from '../../../machines/bet-events.ts';
import type { BetContext, BetInput } from '../../../machines/bet-types.ts';
import { clockMachine, type TickEvent } from '../../../machines/clock.ts';
import { componentLog, log as processLog, type Logger } from '../../../kernel/log.ts';
import { betEffectActors, type BetEffects } from './effects.ts';
import type { BetTransition } from '../history/records.ts';

/** The xstate clock interface (setTimeout/clearTimeout), e.g. a `SimulatedClock` in model tests. */
export type XstateClock = NonNullable<ActorOptions<AnyActorLogic>['clock']>;

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
  /** default: the process logger */
  log?: Logger;
}

/** Just enough of a stored snapshot to know it is a bet series worth rehydrating. */
const StoredBet = v.looseObject({
  status: v.picklist(['active', 'done', 'error', 'stopped']),
  value: v.unknown(),
  context: v.looseObject({ seriesId: v.string(), id: v.string(), bettor: v.optional(v.string()) }),
});

function buildMachine(effects: BetEffects, policy: RetryPolicy) {
  return betMachine.provide({
    actors: betEffectActors(effects),
    delays: { retryBackoff: ({ context }) => retryDelayMs(context.attempt, policy) },
  });
}

type BetActor = Actor<ReturnType<typeof buildMachine>>;

/** A batch of transitions to commit: the newest snapshot, every event emitted since the last batch, and the transitions that emitted them. */
interface Batch {
  json: string;
  final: boolean;
  events: BetEmittedEvent[];
  transitions: BetTransition[];
}

/** Everything the runtime keeps per live series. */
interface Series {
  id: string;
  actor: BetActor | null;
  /** rev of the last commit handed to the store */
  rev: number;
  /** the newest persisted snapshot (JSON), where a restart resumes */
  latest: string | null;
  pending: Batch | null;
  draining: Promise<void> | null;
  /** actor failures so far (restart backoff) */
  failures: number;
  restartTimer: NodeJS.Timeout | null;
  /** unix ms of the expiry a dormant series (no actor, snapshot only) waits for; null when not dormant */
  dormantUntil: number | null;
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

const COMMIT_RETRY: RetryPolicy = { baseMs: 250, maxMs: 5_000 };
const RESTART_BACKOFF: RetryPolicy = { baseMs: 1_000, maxMs: 30_000 };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The unix ms expiry a persisted snapshot waits for, when it is an open bet that only waits; else null. */
function waitingUntil(snapshot: unknown): number | null {
  const s = snapshot as { status?: unknown; value?: unknown; context?: { expireTime?: unknown } } | null;
  const value = s?.value as { open?: unknown } | undefined;
  if (s?.status !== 'active' || value?.open !== 'placed' || typeof s.context?.expireTime !== 'number') return null;
  return s.context.expireTime * 1000;
}
const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** The live bet series of one process. */
export class LiveBets {
  private readonly machine: ReturnType<typeof buildMachine>;
  private readonly live = new Map<string, Series>();
  private readonly log: Logger;
  private clockActors: AnyActorRef[] = [];
  private stopped = false;
  /** a follower's intake: series are handed off once committed */
  private intakeOnly = false;
  private readonly counters = { actorFailures: 0, actorRestarts: 0, commitFailures: 0 };

  private constructor(private readonly options: LiveBetsOptions) {
    this.machine = buildMachine(options.effects, options.retry ?? DEFAULT_RETRY);
    this.log = componentLog(options.log ?? processLog, 'bet-actors');
  }

  /** Creates the runtime and rehydrates every live series of the store; series waiting on a retry retry at once. */
  static async boot(options: LiveBetsOptions): Promise<LiveBets> {
    const runtime = new LiveBets(options);
    await runtime.rehydrate();
    return runtime;
  }

  /**
   * A runtime that rehydrates nothing: a follower's intake (docs/architecture.md#the-leader). It
   * starts the series of a bet placed here, commits its first snapshot with `bet_open`, and lets it go;
   * the leader's runtime takes the stored series over with `adoptStored`.
   */
  static intake(options: LiveBetsOptions): LiveBets {
    const runtime = new LiveBets(options);
    runtime.intakeOnly = true;
    return runtime;
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
    const series = this.track(id, rev, JSON.stringify(snapshot));
    const waitsUntil = waitingUntil(snapshot);
    if (waitsUntil !== null)
      series.dormantUntil = waitsUntil; // its expiry's tick wakes it
    else this.start(series);
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
    const actor = series.actor;
    series.actor = null; // first: the stopping actor's last snapshot is not a transition to commit
    actor?.stop();
    if (series.restartTimer) clearTimeout(series.restartTimer);
    this.live.delete(series.id);
    this.log.info({ seriesId: series.id }, 'bet series committed; handed to the leader');
  }

  /** Starts the series of a freshly placed bet; its actor emits `bet_open`. Returns the series id. */
  open(input: BetInput): string {
    if (this.live.has(input.id)) throw new Error(`bet series ${input.id} is already live`);
    const series = this.track(input.id, 0, null);
    this.attach(series, createActor(this.machine, { input, ...this.clockOption() }));
    return input.id;
  }

  private clockOption(): { clock?: XstateClock } {
    // passing `clock: undefined` would replace xstate's default clock and break every delay
    return this.options.clock ? { clock: this.options.clock } : {};
  }

  private track(id: string, rev: number, latest: string | null): Series {
    const series: Series = { id, actor: null, rev, latest, pending: null, draining: null, failures: 0, restartTimer: null, dormantUntil: null };
    this.live.set(id, series);
    return series;
  }

  /** (Re)starts a series' actor from its latest snapshot; a series in a backoff state retries at once. */
  private start(series: Series): void {
    if (series.latest === null) throw new Error(`bet series ${series.id} has no snapshot to start from`);
    series.dormantUntil = null;
    const snapshot = JSON.parse(series.latest) as Snapshot<unknown> & { context: BetInput };
    // `input` is never read when restoring from a snapshot; the type asks for it anyway
    this.attach(series, createActor(this.machine, { snapshot, input: snapshot.context, ...this.clockOption() }), snapshot.context as unknown as BetContext);
    // xstate does not persist delays: a series restored in a backoff state would wait forever (xstate issue #5331)
    series.actor?.send({ type: 'RESUME' });
  }

  private attach(series: Series, actor: BetActor, restored: BetContext | null = null): void {
    const outbox: BetEmittedEvent[] = [];
    let before = restored;
    actor.on('*', (event) => outbox.push(event));
    actor.subscribe({
      next: (snap) => {
        if (series.actor !== actor) return;
        const final = snap.status === 'done';
        const events = outbox.splice(0);
        const transition = events.length > 0 ? { before, after: snap.context, events, at: this.now() } : null;
        before = snap.context;
        this.persist(series, actor.getPersistedSnapshot(), final, events, transition);
        if (final) series.actor = null;
      },
      error: (err) => {
        if (series.actor !== actor) return;
        series.actor = null;
        this.supervise(series, err);
      },
    });
    series.actor = actor;
    actor.start();
  }

  /** An actor failed: restart it from its latest snapshot after a backoff (never left stopped). */
  private supervise(series: Series, err: unknown): void {
    this.counters.actorFailures++;
    series.failures++;
    const delay = retryDelayMs(series.failures, this.options.restartBackoff ?? RESTART_BACKOFF);
    this.log.error(
      { seriesId: series.id, err, failures: series.failures, restartInMs: delay },
      'bet series actor failed; restarting it from its last snapshot',
    );
    if (this.stopped) return;
    series.restartTimer = setTimeout(() => {
      series.restartTimer = null;
      if (this.stopped || this.live.get(series.id) !== series || series.actor) return;
      this.counters.actorRestarts++;
      try {
        this.start(series);
        this.log.info({ seriesId: series.id, failures: series.failures }, 'bet series actor restarted');
      } catch (restartErr) {
        this.supervise(series, restartErr);
      }
    }, delay);
  }

  /** Queues a commit of the series' newest snapshot with the events emitted since the last one. */
  private persist(series: Series, snapshot: unknown, final: boolean, events: BetEmittedEvent[], transition: BetTransition | null): void {
    const json = JSON.stringify(snapshot);
    if (!final && events.length === 0 && series.latest === json) return; // a tick that changed nothing
    series.latest = json;
    const pending = series.pending;
    const transitions = transition ? [transition] : [];
    series.pending = pending
      ? { json, final: pending.final || final, events: [...pending.events, ...events], transitions: [...pending.transitions, ...transitions] }
      : { json, final, events, transitions };
    this.kick(series);
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** Starts draining the series' commits unless a drain runs; a batch queued while one was finishing gets a new drain. */
  private kick(series: Series): void {
    if (series.draining) return;
    series.draining = this.drain(series).finally(() => {
      series.draining = null;
      if (series.pending && !this.stopped) this.kick(series);
    });
  }

  /** Commits pending batches in order; a failed commit is retried (same rev) until it lands or the runtime stops. */
  private async drain(series: Series): Promise<void> {
    const policy = this.options.commitRetry ?? COMMIT_RETRY;
    while (series.pending) {
      const batch = series.pending;
      series.pending = null;
      const rev = ++series.rev;
      for (let failures = 0; ;) {
        try {
          // built anew on each attempt: a record read failed, or another writer's record changed meanwhile
          const records = this.options.records && batch.transitions.length > 0 ? await this.options.records(batch.transitions) : [];
          const out = await this.options.store.commit(series.id, { snapshot: JSON.parse(batch.json), final: batch.final, events: batch.events, rev, records });
          if (failures > 0) this.log.info({ seriesId: series.id, rev, failures }, 'bet snapshot committed after failures');
          if (out.applied) this.publish(series.id, out.events);
          else this.log.warn({ seriesId: series.id, rev }, 'bet commit was already stored (an earlier answer was lost); its events come from the log');
          break;
        } catch (err) {
          failures++;
          this.counters.commitFailures++;
          if (failures === 1) this.log.error({ seriesId: series.id, rev, err: message(err) }, 'bet snapshot not committed; retrying until it is');
          if (this.stopped) return;
          await sleep(retryDelayMs(failures, policy));
          if (this.stopped) return;
        }
      }
      if (batch.final && !series.pending) this.live.delete(series.id);
      else if (!series.pending && this.intakeOnly) this.handOff(series);
      else if (!series.pending) this.sleepIfWaiting(series);
    }
  }

  /** A series whose committed state only waits for its expiry gives its actor up (it keeps the snapshot). */
  private sleepIfWaiting(series: Series): void {
    if (!series.actor || series.latest === null || this.stopped) return;
    const until = waitingUntil(JSON.parse(series.latest) as unknown);
    if (until === null || until <= Date.now()) return;
    const actor = series.actor;
    series.actor = null; // first: the stopping actor's last snapshot is not a transition to commit
    series.dormantUntil = until;
    actor.stop();
  }

  private publish(seriesId: string, events: Array<Sequenced<BetEmittedEvent>>): void {
    if (events.length === 0) return;
    try {
      this.options.publish(events);
    } catch (err) {
      this.log.error({ seriesId, err }, 'publishing bet events failed');
    }
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
    if (series.restartTimer) {
      clearTimeout(series.restartTimer);
      series.restartTimer = null;
      this.counters.actorRestarts++;
      try {
        this.start(series);
        this.log.info({ seriesId, failures: series.failures }, 'bet series actor restarted by an operator');
      } catch (err) {
        this.supervise(series, err);
      }
      return 'restarted';
    }
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
    if (!series.actor && series.dormantUntil !== null && series.dormantUntil <= now && !series.restartTimer) {
      try {
        this.start(series);
      } catch (err) {
        this.supervise(series, err);
      }
    }
    series.actor?.send({ type: 'TICK', now });
  }

  /** Starts a settlement clock of its own: `tick(now())` every `intervalMs` (tests; the gateway's Settler ticks). */
  startClock(intervalMs: number, now: () => number = Date.now): void {
    const relay = createActor(
      fromCallback<TickEvent>(({ receive }) => {
        receive((event) => this.tick(event.now));
      }),
    ).start();
    const clock = createActor(clockMachine, { input: { intervalMs, target: relay, now }, ...this.clockOption() }).start();
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

  /** The context of a live series: its actor's, or its latest snapshot's while the actor is restarting. */
  contextOf(seriesId: string): BetContext | undefined {
    const series = this.live.get(seriesId);
    if (!series) return undefined;
    if (series.actor) return series.actor.getSnapshot().context;
    return series.latest ? (JSON.parse(series.latest) as { context: BetContext }).context : undefined;
  }

  /** The persisted snapshot of a live series, as it would be saved; undefined when not live. */
  persistedSnapshotOf(seriesId: string): unknown {
    const series = this.live.get(seriesId);
    if (series?.actor) return JSON.parse(JSON.stringify(series.actor.getPersistedSnapshot())) as unknown;
    return series?.latest ? (JSON.parse(series.latest) as unknown) : undefined;
  }

  /** The current snapshot of a live series (state value and context): its actor's, or the latest committed one while it has none (dormant, restarting). */
  snapshotOf(seriesId: string): { value: unknown; context: BetContext } | undefined {
    const series = this.live.get(seriesId);
    if (!series) return undefined;
    if (series.actor) return series.actor.getSnapshot();
    return series.latest ? (JSON.parse(series.latest) as { value: unknown; context: BetContext }) : undefined;
  }

  /** Counters for operators. */
  stats(): LiveBetStats {
    let dormant = 0;
    for (const c of this.live.values()) if (c.dormantUntil !== null && !c.actor) dormant++;
    return { live: this.live.size, dormant, ...this.counters };
  }

  /** Resolves once every commit queued so far has landed (waits through retries). */
  async settled(): Promise<void> {
    for (;;) {
      const draining = [...this.live.values()].map((c) => c.draining).filter((d): d is Promise<void> => d !== null);
      if (draining.length === 0) return;
      await Promise.all(draining);
    }
  }

  /** Resolves once the series' queued commits have landed, or after `timeoutMs` (false then). */
  async committed(seriesId: string, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const draining = this.live.get(seriesId)?.draining;
      if (!draining) return true;
      const left = deadline - Date.now();
      if (left <= 0) return false;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([draining.then(() => false), new Promise<boolean>((r) => (timer = setTimeout(() => r(true), left)))]);
      clearTimeout(timer);
      if (timedOut) return false;
    }
  }

  /** Stops the clock and every actor (pending effects are abandoned, snapshots stay live); waits up to `graceMs` for commits. */
  async stop(graceMs = 3_000): Promise<void> {
    for (const ref of this.clockActors) ref.stop();
    this.clockActors = [];
    for (const series of this.live.values()) {
      const actor = series.actor;
      series.actor = null; // first: a stopping actor's last snapshot must not be committed
      actor?.stop();
      if (series.restartTimer) clearTimeout(series.restartTimer);
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.settled(), new Promise<void>((r) => (timer = setTimeout(r, graceMs)))]);
    clearTimeout(timer);
    this.stopped = true;
  }
}
