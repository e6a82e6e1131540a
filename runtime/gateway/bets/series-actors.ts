/**
 * Runs the actors of live series (docs/architecture.md#live-bets): starts a series' actor (fresh,
 * or from its latest snapshot: a series restored in a retry backoff retries at once; a dormant
 * series' snapshot is read back from the store first), turns each transition into a commit, and
 * restarts an actor that fails from its latest snapshot after a backoff, so none is ever left stopped.
 */
import { createActor, type Snapshot } from 'xstate';
import type { Logger } from '../../../kernel/log.ts';
import { backoffMs, type RetryPolicy } from '../../../kernel/backoff.ts';
import { upgradeBetSnapshot } from '../../../machines/bet.ts';
import type { BetEmittedEvent } from '../../../machines/bet-events.ts';
import type { BetContext, BetInput } from '../../../machines/bet-types.ts';
import type { SeriesCommits } from './series-commits.ts';
import { stateName } from './state-name.ts';
import type { buildSeriesMachine, Series, SeriesActor, XstateClock } from './series.ts';

/** A wake whose snapshot read took longer than this does not deliver the tick that asked for it. */
const STALE_WAKE_MS = 500;

/** What actors are run with. */
export interface SeriesActorsDeps {
  machine: ReturnType<typeof buildSeriesMachine>;
  commits: SeriesCommits;
  log: Logger;
  /** xstate clock for retry delays (model tests) */
  clock?: XstateClock;
  /** unix ms of a transition */
  now: () => number;
  /** delays before restarting a failed actor [1 s doubling to 30 s] */
  restartBackoff?: RetryPolicy;
  /** whether the runtime stopped (nothing is restarted then) */
  stopped(): boolean;
  /** whether `series` is still the live one of its id */
  isLive(series: Series): boolean;
  /** the stored snapshot of a series (null when none): a dormant series keeps none in memory */
  load(seriesId: string): Promise<unknown>;
}

const RESTART_BACKOFF: RetryPolicy = { baseMs: 1_000, maxMs: 30_000 };

/** Sends a series' actor, if it has one, the tick of `now`. */
const tickOf = (series: Series, now: number): void => series.actor?.send({ type: 'TICK', now });

/** The actor side of live series. */
export class SeriesActors {
  /** actors that failed, and restarts made (operators) */
  readonly counters = { actorFailures: 0, actorRestarts: 0 };

  constructor(private readonly d: SeriesActorsDeps) {}

  private clockOption(): { clock?: XstateClock } {
    // passing `clock: undefined` would replace xstate's default clock and break every delay
    return this.d.clock ? { clock: this.d.clock } : {};
  }

  /** Starts the actor of a freshly placed bet (it emits `bet_open`). */
  open(series: Series, input: BetInput): void {
    this.attach(series, createActor(this.d.machine, { input, ...this.clockOption() }));
  }

  /**
   * (Re)starts a series' actor from its latest snapshot; a series in a backoff state retries at
   * once. A dormant series' snapshot is read from the store first: its actor starts when the read
   * answers, and is sent a TICK of `now` then (the tick that woke it).
   */
  start(series: Series, now?: number): void {
    if (series.latest === null && series.dormant) return this.wake(series, now);
    if (series.latest === null) throw new Error(`bet series ${series.id} has no snapshot to start from`);
    series.dormantUntil = null;
    series.dormant = null;
    const snapshot = JSON.parse(series.latest) as Snapshot<unknown> & { context: BetInput };
    // `input` is never read when restoring from a snapshot; the type asks for it anyway
    this.attach(series, createActor(this.d.machine, { snapshot, input: snapshot.context, ...this.clockOption() }), snapshot.context as unknown as BetContext);
    // xstate does not persist delays: a series restored in a backoff state would wait forever (xstate issue #5331)
    series.actor?.send({ type: 'RESUME' });
  }

  /** Starts the series' actor now (a dormant one once its snapshot is read back), or supervises the failure to. */
  startOrSupervise(series: Series, now?: number): void {
    try {
      this.start(series, now);
    } catch (err) {
      this.supervise(series, err);
    }
  }

  /** Reads a dormant series' snapshot back from the store and starts its actor; a failed read is supervised like a failed start. */
  private wake(series: Series, now: number | undefined): void {
    if (series.waking) return;
    const askedAt = performance.now();
    const woken = (stored: unknown) => {
      series.waking = null;
      if (this.d.stopped() || !this.d.isLive(series) || series.actor || !series.dormant) return;
      if (stored === null) throw new Error(`bet series ${series.id} is dormant but the store has no snapshot of it`);
      series.latest = JSON.stringify(upgradeBetSnapshot(stored));
      this.start(series);
      // the tick that woke it is delivered only while it is still the present: after a pause (the
      // process stopped, its lease perhaps gone) the next tick, given only while leading, drives it
      // (docs/architecture.md#the-leader)
      if (now !== undefined && performance.now() - askedAt < STALE_WAKE_MS) tickOf(series, now);
    };
    series.waking = this.d
      .load(series.id)
      .then(woken)
      .catch((err: unknown) => {
        series.waking = null;
        if (!series.actor) this.supervise(series, err);
      });
  }

  private attach(series: Series, actor: SeriesActor, restored: BetContext | null = null): void {
    const outbox: BetEmittedEvent[] = [];
    let before = restored;
    actor.on('*', (event) => outbox.push(event));
    actor.subscribe({
      next: (snap) => {
        if (series.actor !== actor) return;
        const final = snap.status === 'done';
        const events = outbox.splice(0);
        const transition = events.length > 0 ? { before, after: snap.context, events, at: this.d.now() } : null;
        if (snap.context.attempt > (before?.attempt ?? 0)) this.effectFailed(series, snap.context, stateName(snap.value));
        before = snap.context;
        this.d.commits.queue(series, actor.getPersistedSnapshot(), final, events, transition);
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

  /**
   * An effect of the series failed and waits for its retry (the machine's backoff): logged at the
   * first failure and then at every doubling of the count, so a bet that keeps failing stays
   * visible without one line per retry (docs/operations.md#ops-cli).
   */
  private effectFailed(series: Series, context: BetContext, state: string): void {
    const { attempt, lastError } = context;
    if ((attempt & (attempt - 1)) !== 0) return;
    this.d.log.warn({ seriesId: series.id, betId: context.id.toString(), state, attempt, err: lastError }, 'bet effect failed; retrying after a backoff');
  }

  /** An actor failed: restart it from its latest snapshot after a backoff (never left stopped). */
  supervise(series: Series, err: unknown): void {
    this.counters.actorFailures++;
    series.failures++;
    const delay = backoffMs(series.failures, this.d.restartBackoff ?? RESTART_BACKOFF);
    this.d.log.error(
      { seriesId: series.id, err, failures: series.failures, restartInMs: delay },
      'bet series actor failed; restarting it from its last snapshot',
    );
    if (this.d.stopped()) return;
    series.restartTimer = setTimeout(() => {
      series.restartTimer = null;
      if (this.d.stopped() || !this.d.isLive(series) || series.actor) return;
      this.counters.actorRestarts++;
      try {
        this.start(series);
        this.d.log.info({ seriesId: series.id, failures: series.failures }, 'bet series actor restarted');
      } catch (restartErr) {
        this.supervise(series, restartErr);
      }
    }, delay);
  }

  /** An operator's retry: an actor waiting for its restart is restarted now; false when none waits. */
  restartNow(series: Series): boolean {
    if (!series.restartTimer) return false;
    clearTimeout(series.restartTimer);
    series.restartTimer = null;
    this.counters.actorRestarts++;
    try {
      this.start(series);
      this.d.log.info({ seriesId: series.id, failures: series.failures }, 'bet series actor restarted by an operator');
    } catch (err) {
      this.supervise(series, err);
    }
    return true;
  }

  /** Stops a series' actor without committing its last snapshot; the snapshot stays live in the store. */
  release(series: Series): void {
    const actor = series.actor;
    series.actor = null; // first: the stopping actor's last snapshot is not a transition to commit
    actor?.stop();
    if (series.restartTimer) clearTimeout(series.restartTimer);
  }
}
