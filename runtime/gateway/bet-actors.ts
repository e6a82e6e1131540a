/**
 * Live bet chains of the gateway: one `betMachine` actor per chain, with the runtime's effects
 * injected (design: "Shape"). After every transition the chain's snapshot, the events the
 * transition emitted and the bet history records they change (`bet-records.ts`) are committed to
 * the store in one atomic write (snapshot, live set, event log, history), and only then handed to
 * `publish` with their seqs: what clients saw is exactly what a restart resumes from, and a crash
 * can never keep a final snapshot without its `bet_closed` or its history record.
 *
 * Nothing is left stuck (design: "actors that fail are restarted from their last snapshot"):
 * - a commit that fails (Redis down) is retried with backoff until it lands, the same commit
 *   with the same rev, so a retry whose first answer was lost never appends events twice;
 *   transitions made meanwhile are coalesced into the next commit;
 * - an actor that fails is restarted from its latest snapshot with backoff, never left stopped.
 *
 * Live chains are cheap (style: "do not keep every actor resident"): a bet waiting for its expiry
 * is held as its committed snapshot (a few hundred bytes of JSON), not as an actor; the tick that
 * reaches its expiry rehydrates it and it settles from there.
 *
 * @example
 *   const bets = await BetActors.boot({ store, effects, publish: (events) => stream.deliver(events) });
 *   bets.open({ id: '7', bettor, side: 'UP', amountUnits: '100000000', entryPrice: '15012345678', expireTime });
 *   bets.tick(Date.now()); // the settler ticks every SMART_SETTLE_INTERVAL_MS
 */
import * as v from 'valibot';
import { createActor, fromCallback, type Actor, type ActorOptions, type AnyActorLogic, type AnyActorRef, type Snapshot } from 'xstate';
import type { BetRecord } from '../../adapters/store/bet-history.ts';
import type { Sequenced } from '../../adapters/store/event-log.ts';
import type { SnapshotStore, StoredSnapshot } from '../../adapters/store/snapshot-port.ts';
import { betMachine, DEFAULT_RETRY, retryDelayMs, type RetryPolicy } from '../../machines/bet.ts';
import type { BetEmittedEvent } from '../../machines/bet-events.ts';
import type { BetContext, BetInput } from '../../machines/bet-types.ts';
import { clockMachine, type TickEvent } from '../../machines/clock.ts';
import { componentLog, log as processLog, type Logger } from '../log.ts';
import { betEffectActors, type BetEffects } from './bet-effects.ts';
import type { BetTransition } from './bet-records.ts';

/** The xstate clock interface (setTimeout/clearTimeout), e.g. a `SimulatedClock` in model tests. */
export type XstateClock = NonNullable<ActorOptions<AnyActorLogic>['clock']>;

/** What the bet runtime is built from. */
export interface BetActorsOptions {
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

/** Just enough of a stored snapshot to know it is a bet chain worth rehydrating. */
const StoredBet = v.looseObject({
  status: v.picklist(['active', 'done', 'error', 'stopped']),
  value: v.unknown(),
  context: v.looseObject({ chainId: v.string(), id: v.string(), bettor: v.optional(v.string()) }),
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

/** Everything the runtime keeps per live chain. */
interface Chain {
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
  /** unix ms of the expiry a dormant chain (no actor, snapshot only) waits for; null when not dormant */
  dormantUntil: number | null;
}

/** Counters for operators (logs now, metrics later). */
export interface BetActorStats {
  live: number;
  /** live chains held as a snapshot only, waiting for their expiry */
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

/** The live bet chains of one process. */
export class BetActors {
  private readonly machine: ReturnType<typeof buildMachine>;
  private readonly chains = new Map<string, Chain>();
  private readonly log: Logger;
  private clockActors: AnyActorRef[] = [];
  private stopped = false;
  /** a follower's intake: chains are handed off once committed */
  private intakeOnly = false;
  private readonly counters = { actorFailures: 0, actorRestarts: 0, commitFailures: 0 };

  private constructor(private readonly options: BetActorsOptions) {
    this.machine = buildMachine(options.effects, options.retry ?? DEFAULT_RETRY);
    this.log = componentLog(options.log ?? processLog, 'bet-actors');
  }

  /** Creates the runtime and rehydrates every live chain of the store; chains waiting on a retry retry at once. */
  static async boot(options: BetActorsOptions): Promise<BetActors> {
    const runtime = new BetActors(options);
    await runtime.rehydrate();
    return runtime;
  }

  /**
   * A runtime that rehydrates nothing: a follower's intake (design: "Several gateways"). It starts
   * the chain of a bet placed here, commits its first snapshot with `bet_open`, and lets it go; the leader's runtime takes the stored chain over with `adoptStored`.
   */
  static intake(options: BetActorsOptions): BetActors {
    const runtime = new BetActors(options);
    runtime.intakeOnly = true;
    return runtime;
  }

  private async rehydrate(): Promise<void> {
    for (const stored of await this.options.store.loadLive()) await this.rehydrateOne(stored);
  }

  private async rehydrateOne({ id, snapshot, rev }: StoredSnapshot): Promise<void> {
    const parsed = v.safeParse(StoredBet, snapshot);
    if (!parsed.success) {
      this.log.error({ chainId: id }, 'stored bet snapshot is not a bet chain; left in the store, not rehydrated');
      return;
    }
    if (parsed.output.status !== 'active') {
      this.log.warn({ chainId: id, status: parsed.output.status }, 'stored bet snapshot is not active; marked final');
      await this.options.store.commit(id, { snapshot, final: true, events: [], rev: rev + 1 }).catch((err: unknown) => {
        this.log.error({ chainId: id, err: message(err) }, 'could not mark the snapshot final; the next boot tries again');
      });
      return;
    }
    const chain = this.track(id, rev, JSON.stringify(snapshot));
    const waitsUntil = waitingUntil(snapshot);
    if (waitsUntil !== null)
      chain.dormantUntil = waitsUntil; // its expiry's tick wakes it
    else this.start(chain);
    this.log.info({ chainId: id, state: parsed.output.value, dormant: waitsUntil !== null }, 'bet chain rehydrated');
  }

  /**
   * Takes over live chains that other gateways committed to the shared store (bets placed on a
   * follower) and this runtime does not carry yet. Returns how many were adopted.
   */
  async adoptStored(): Promise<number> {
    if (this.stopped) return 0;
    let adopted = 0;
    for (const stored of await this.options.store.loadLive(new Set(this.chains.keys()))) {
      if (this.chains.has(stored.id) || this.stopped) continue;
      await this.rehydrateOne(stored);
      if (this.chains.has(stored.id)) adopted++;
    }
    return adopted;
  }

  /** An intake runtime lets a chain go once its commits have landed: the leader carries it from the store. */
  private handOff(chain: Chain): void {
    const actor = chain.actor;
    chain.actor = null; // first: the stopping actor's last snapshot is not a transition to commit
    actor?.stop();
    if (chain.restartTimer) clearTimeout(chain.restartTimer);
    this.chains.delete(chain.id);
    this.log.info({ chainId: chain.id }, 'bet chain committed; handed to the leader');
  }

  /** Starts the chain of a freshly placed bet; its actor emits `bet_open`. Returns the chain id. */
  open(input: BetInput): string {
    if (this.chains.has(input.id)) throw new Error(`bet chain ${input.id} is already live`);
    const chain = this.track(input.id, 0, null);
    this.attach(chain, createActor(this.machine, { input, ...this.clockOption() }));
    return input.id;
  }

  private clockOption(): { clock?: XstateClock } {
    // passing `clock: undefined` would replace xstate's default clock and break every delay
    return this.options.clock ? { clock: this.options.clock } : {};
  }

  private track(id: string, rev: number, latest: string | null): Chain {
    const chain: Chain = { id, actor: null, rev, latest, pending: null, draining: null, failures: 0, restartTimer: null, dormantUntil: null };
    this.chains.set(id, chain);
    return chain;
  }

  /** (Re)starts a chain's actor from its latest snapshot; a chain in a backoff state retries at once. */
  private start(chain: Chain): void {
    if (chain.latest === null) throw new Error(`bet chain ${chain.id} has no snapshot to start from`);
    chain.dormantUntil = null;
    const snapshot = JSON.parse(chain.latest) as Snapshot<unknown> & { context: BetInput };
    // `input` is never read when restoring from a snapshot; the type asks for it anyway
    this.attach(chain, createActor(this.machine, { snapshot, input: snapshot.context, ...this.clockOption() }), snapshot.context as unknown as BetContext);
    // xstate does not persist delays: a chain restored in a backoff state would wait forever (xstate issue #5331)
    chain.actor?.send({ type: 'RESUME' });
  }

  private attach(chain: Chain, actor: BetActor, restored: BetContext | null = null): void {
    const outbox: BetEmittedEvent[] = [];
    let before = restored;
    actor.on('*', (event) => outbox.push(event));
    actor.subscribe({
      next: (snap) => {
        if (chain.actor !== actor) return;
        const final = snap.status === 'done';
        const events = outbox.splice(0);
        const transition = events.length > 0 ? { before, after: snap.context, events, at: this.now() } : null;
        before = snap.context;
        this.persist(chain, actor.getPersistedSnapshot(), final, events, transition);
        if (final) chain.actor = null;
      },
      error: (err) => {
        if (chain.actor !== actor) return;
        chain.actor = null;
        this.supervise(chain, err);
      },
    });
    chain.actor = actor;
    actor.start();
  }

  /** An actor failed: restart it from its latest snapshot after a backoff (never left stopped). */
  private supervise(chain: Chain, err: unknown): void {
    this.counters.actorFailures++;
    chain.failures++;
    const delay = retryDelayMs(chain.failures, this.options.restartBackoff ?? RESTART_BACKOFF);
    this.log.error({ chainId: chain.id, err, failures: chain.failures, restartInMs: delay }, 'bet chain actor failed; restarting it from its last snapshot');
    if (this.stopped) return;
    chain.restartTimer = setTimeout(() => {
      chain.restartTimer = null;
      if (this.stopped || this.chains.get(chain.id) !== chain || chain.actor) return;
      this.counters.actorRestarts++;
      try {
        this.start(chain);
        this.log.info({ chainId: chain.id, failures: chain.failures }, 'bet chain actor restarted');
      } catch (restartErr) {
        this.supervise(chain, restartErr);
      }
    }, delay);
  }

  /** Queues a commit of the chain's newest snapshot with the events emitted since the last one. */
  private persist(chain: Chain, snapshot: unknown, final: boolean, events: BetEmittedEvent[], transition: BetTransition | null): void {
    const json = JSON.stringify(snapshot);
    if (!final && events.length === 0 && chain.latest === json) return; // a tick that changed nothing
    chain.latest = json;
    const pending = chain.pending;
    const transitions = transition ? [transition] : [];
    chain.pending = pending
      ? { json, final: pending.final || final, events: [...pending.events, ...events], transitions: [...pending.transitions, ...transitions] }
      : { json, final, events, transitions };
    this.kick(chain);
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** Starts draining the chain's commits unless a drain runs; a batch queued while one was finishing gets a new drain. */
  private kick(chain: Chain): void {
    if (chain.draining) return;
    chain.draining = this.drain(chain).finally(() => {
      chain.draining = null;
      if (chain.pending && !this.stopped) this.kick(chain);
    });
  }

  /** Commits pending batches in order; a failed commit is retried (same rev) until it lands or the runtime stops. */
  private async drain(chain: Chain): Promise<void> {
    const policy = this.options.commitRetry ?? COMMIT_RETRY;
    while (chain.pending) {
      const batch = chain.pending;
      chain.pending = null;
      const rev = ++chain.rev;
      for (let failures = 0; ;) {
        try {
          // built anew on each attempt: a record read failed, or another writer's record changed meanwhile
          const records = this.options.records && batch.transitions.length > 0 ? await this.options.records(batch.transitions) : [];
          const out = await this.options.store.commit(chain.id, { snapshot: JSON.parse(batch.json), final: batch.final, events: batch.events, rev, records });
          if (failures > 0) this.log.info({ chainId: chain.id, rev, failures }, 'bet snapshot committed after failures');
          if (out.applied) this.publish(chain.id, out.events);
          else this.log.warn({ chainId: chain.id, rev }, 'bet commit was already stored (an earlier answer was lost); its events come from the log');
          break;
        } catch (err) {
          failures++;
          this.counters.commitFailures++;
          if (failures === 1) this.log.error({ chainId: chain.id, rev, err: message(err) }, 'bet snapshot not committed; retrying until it is');
          if (this.stopped) return;
          await sleep(retryDelayMs(failures, policy));
          if (this.stopped) return;
        }
      }
      if (batch.final && !chain.pending) this.chains.delete(chain.id);
      else if (!chain.pending && this.intakeOnly) this.handOff(chain);
      else if (!chain.pending) this.sleepIfWaiting(chain);
    }
  }

  /** A chain whose committed state only waits for its expiry gives its actor up (it keeps the snapshot). */
  private sleepIfWaiting(chain: Chain): void {
    if (!chain.actor || chain.latest === null || this.stopped) return;
    const until = waitingUntil(JSON.parse(chain.latest) as unknown);
    if (until === null || until <= Date.now()) return;
    const actor = chain.actor;
    chain.actor = null; // first: the stopping actor's last snapshot is not a transition to commit
    chain.dormantUntil = until;
    actor.stop();
  }

  private publish(chainId: string, events: Array<Sequenced<BetEmittedEvent>>): void {
    if (events.length === 0) return;
    try {
      this.options.publish(events);
    } catch (err) {
      this.log.error({ chainId, err }, 'publishing bet events failed');
    }
  }

  /** Wakes chains waiting in a retry backoff (all, or one): they retry at once. Returns how many were sent RESUME. */
  resume(chainId?: string): number {
    let woken = 0;
    for (const chain of chainId === undefined ? this.chains.values() : [this.chains.get(chainId)]) {
      if (!chain?.actor) continue;
      chain.actor.send({ type: 'RESUME' });
      woken++;
    }
    return woken;
  }

  /**
   * An operator's retry of one chain (`npm run ops -- retry <id>`): a chain waiting in an effect's
   * retry backoff retries at once, an actor waiting for its restart is restarted now. A chain that
   * only waits for its expiry is left waiting.
   */
  retryNow(chainId: string): 'resumed' | 'restarted' | 'waiting_for_expiry' | 'not_live' {
    const chain = this.chains.get(chainId);
    if (!chain || this.stopped) return 'not_live';
    if (chain.restartTimer) {
      clearTimeout(chain.restartTimer);
      chain.restartTimer = null;
      this.counters.actorRestarts++;
      try {
        this.start(chain);
        this.log.info({ chainId, failures: chain.failures }, 'bet chain actor restarted by an operator');
      } catch (err) {
        this.supervise(chain, err);
      }
      return 'restarted';
    }
    if (!chain.actor) return 'waiting_for_expiry';
    chain.actor.send({ type: 'RESUME' });
    return 'resumed';
  }

  /** Forwards a clock tick (unix ms) to every live chain, waking dormant ones whose expiry it reached; expired bets start settling. */
  tick(now: number): void {
    for (const chain of this.chains.values()) this.tickChain(chain, now);
  }

  /**
   * `tick`, handing the event loop back every `slice` chains: with thousands of bets expiring
   * together, the first ones' closes go out while the rest are still being ticked.
   */
  async tickInSlices(now: number, slice = 200): Promise<void> {
    let n = 0;
    for (const chain of [...this.chains.values()]) {
      this.tickChain(chain, now);
      if (++n % slice === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  private tickChain(chain: Chain, now: number): void {
    if (!chain.actor && chain.dormantUntil !== null && chain.dormantUntil <= now && !chain.restartTimer) {
      try {
        this.start(chain);
      } catch (err) {
        this.supervise(chain, err);
      }
    }
    chain.actor?.send({ type: 'TICK', now });
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

  /** Whether a chain with this id is live here. */
  has(chainId: string): boolean {
    return this.chains.has(chainId);
  }

  /** Ids of the live chains (also those waiting for a restart or for their final commit). */
  chainIds(): string[] {
    return [...this.chains.keys()];
  }

  /** The context of a live chain: its actor's, or its latest snapshot's while the actor is restarting. */
  contextOf(chainId: string): BetContext | undefined {
    const chain = this.chains.get(chainId);
    if (!chain) return undefined;
    if (chain.actor) return chain.actor.getSnapshot().context;
    return chain.latest ? (JSON.parse(chain.latest) as { context: BetContext }).context : undefined;
  }

  /** The persisted snapshot of a live chain, as it would be saved; undefined when not live. */
  persistedSnapshotOf(chainId: string): unknown {
    const chain = this.chains.get(chainId);
    if (chain?.actor) return JSON.parse(JSON.stringify(chain.actor.getPersistedSnapshot())) as unknown;
    return chain?.latest ? (JSON.parse(chain.latest) as unknown) : undefined;
  }

  /** The current snapshot of a live chain (state value and context): its actor's, or the latest committed one while it has none (dormant, restarting). */
  snapshotOf(chainId: string): { value: unknown; context: BetContext } | undefined {
    const chain = this.chains.get(chainId);
    if (!chain) return undefined;
    if (chain.actor) return chain.actor.getSnapshot();
    return chain.latest ? (JSON.parse(chain.latest) as { value: unknown; context: BetContext }) : undefined;
  }

  /** Counters for operators. */
  stats(): BetActorStats {
    let dormant = 0;
    for (const c of this.chains.values()) if (c.dormantUntil !== null && !c.actor) dormant++;
    return { live: this.chains.size, dormant, ...this.counters };
  }

  /** Resolves once every commit queued so far has landed (waits through retries). */
  async settled(): Promise<void> {
    for (;;) {
      const draining = [...this.chains.values()].map((c) => c.draining).filter((d): d is Promise<void> => d !== null);
      if (draining.length === 0) return;
      await Promise.all(draining);
    }
  }

  /** Resolves once the chain's queued commits have landed, or after `timeoutMs` (false then). */
  async committed(chainId: string, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const draining = this.chains.get(chainId)?.draining;
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
    for (const chain of this.chains.values()) {
      const actor = chain.actor;
      chain.actor = null; // first: a stopping actor's last snapshot must not be committed
      actor?.stop();
      if (chain.restartTimer) clearTimeout(chain.restartTimer);
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.settled(), new Promise<void>((r) => (timer = setTimeout(r, graceMs)))]);
    clearTimeout(timer);
    this.stopped = true;
  }
}
