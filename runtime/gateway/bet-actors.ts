/**
 * Live bet chains of the gateway: one `betMachine` actor per chain, with the runtime's
 * effects injected, its snapshot saved on every transition and rehydrated at boot
 * (design: "Shape"). Events a chain emits are published only after the snapshot of the
 * transition that emitted them is saved, so what clients saw is what a restart resumes from.
 *
 * @example
 *   const bets = await BetActors.boot({ store, effects, publish: (ev) => app.publish('bets', JSON.stringify(ev)) });
 *   bets.open({ id: '7', bettor, side: 'UP', amountUnits: '100000000', entryPrice: '15012345678', expireTime });
 *   bets.startClock(2000); // TICK every SMART_SETTLE_INTERVAL_MS
 */
import * as v from 'valibot';
import { createActor, fromCallback, type Actor, type ActorOptions, type AnyActorLogic, type AnyActorRef, type Snapshot } from 'xstate';
import type { SnapshotStore } from '../../adapters/store/snapshot-port.ts';
import { betMachine, DEFAULT_RETRY, retryDelayMs, type RetryPolicy } from '../../machines/bet.ts';
import type { BetEmittedEvent } from '../../machines/bet-events.ts';
import type { BetInput } from '../../machines/bet-types.ts';
import { clockMachine, type TickEvent } from '../../machines/clock.ts';
import { componentLog, log as processLog, type Logger } from '../log.ts';
import { betEffectActors, type BetEffects } from './bet-effects.ts';

/** The xstate clock interface (setTimeout/clearTimeout), e.g. a `SimulatedClock` in tests. */
export type XstateClock = NonNullable<ActorOptions<AnyActorLogic>['clock']>;

/** What the bet runtime is built from. */
export interface BetActorsOptions {
  store: SnapshotStore;
  effects: BetEffects;
  /** the outside world (WebSocket fan-out); called once per emitted event, in order */
  publish: (event: BetEmittedEvent) => void;
  /** xstate clock for retry delays and the settlement clock; tests pass a SimulatedClock */
  clock?: XstateClock;
  retry?: RetryPolicy;
  /** default: the process logger */
  log?: Logger;
}

/** Just enough of a stored snapshot to know it is a bet chain worth rehydrating. */
const StoredBet = v.looseObject({
  status: v.picklist(['active', 'done', 'error', 'stopped']),
  value: v.unknown(),
  context: v.looseObject({ chainId: v.string(), id: v.string() }),
});

function buildMachine(effects: BetEffects, policy: RetryPolicy) {
  return betMachine.provide({
    actors: betEffectActors(effects),
    delays: { retryBackoff: ({ context }) => retryDelayMs(context.attempt, policy) },
  });
}

type BetActor = Actor<ReturnType<typeof buildMachine>>;

/** The live bet chains of one process. */
export class BetActors {
  private readonly machine: ReturnType<typeof buildMachine>;
  private readonly live = new Map<string, BetActor>();
  private readonly saving = new Map<string, Promise<void>>();
  private readonly lastSaved = new Map<string, string>();
  private readonly log: Logger;
  private clockActors: AnyActorRef[] = [];

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

  private async rehydrate(): Promise<void> {
    for (const { id, snapshot } of await this.options.store.loadLive()) {
      const parsed = v.safeParse(StoredBet, snapshot);
      if (!parsed.success) {
        this.log.error({ chainId: id }, 'stored bet snapshot is not a bet chain; left in the store, not rehydrated');
        continue;
      }
      if (parsed.output.status !== 'active') {
        this.log.warn({ chainId: id, status: parsed.output.status }, 'stored bet snapshot is not active; marked final');
        await this.options.store.save(id, snapshot, true);
        continue;
      }
      // `input` is never read when restoring from a snapshot; the type asks for it anyway
      const restore = { snapshot: snapshot as Snapshot<unknown>, clock: this.options.clock, input: parsed.output.context as unknown as BetInput };
      this.attach(id, createActor(this.machine, restore));
      // xstate does not persist delays: a chain restored in a backoff state would wait forever (xstate issue #5331)
      this.live.get(id)?.send({ type: 'RESUME' });
      this.log.info({ chainId: id, state: parsed.output.value }, 'bet chain rehydrated');
    }
  }

  /** Starts the chain of a freshly placed bet; its actor emits `bet_open`. Returns the chain id. */
  open(input: BetInput): string {
    if (this.live.has(input.id)) throw new Error(`bet chain ${input.id} is already live`);
    this.attach(input.id, createActor(this.machine, { input, clock: this.options.clock }));
    return input.id;
  }

  private attach(chainId: string, actor: BetActor): void {
    const outbox: BetEmittedEvent[] = [];
    actor.on('*', (event) => outbox.push(event));
    actor.subscribe({
      next: (snap) => {
        const final = snap.status === 'done';
        this.persist(chainId, actor.getPersistedSnapshot(), final, outbox.splice(0));
        if (final) this.live.delete(chainId);
      },
      error: (err) => {
        // the last saved snapshot stays live, so the next boot tries again
        this.log.error({ chainId, err }, 'bet chain actor failed; stopped until the next boot');
        this.live.delete(chainId);
      },
    });
    this.live.set(chainId, actor);
    actor.start();
  }

  /** Saves in order per chain, then publishes what the saved transition emitted. */
  private persist(chainId: string, snapshot: unknown, final: boolean, events: BetEmittedEvent[]): void {
    const json = JSON.stringify(snapshot);
    if (!final && events.length === 0 && this.lastSaved.get(chainId) === json) return; // a tick that changed nothing
    this.lastSaved.set(chainId, json);
    if (final) this.lastSaved.delete(chainId);
    const previous = this.saving.get(chainId) ?? Promise.resolve();
    const next = previous
      .then(() => this.options.store.save(chainId, JSON.parse(json) as unknown, final))
      .catch((err: unknown) => this.log.error({ chainId, err }, 'bet snapshot not saved'))
      .then(() => {
        for (const event of events) {
          try {
            this.options.publish(event);
          } catch (err) {
            this.log.error({ chainId, err, event: event.type }, 'publishing a bet event failed');
          }
        }
      });
    this.saving.set(chainId, next);
    void next.then(() => {
      if (this.saving.get(chainId) === next) this.saving.delete(chainId);
    });
  }

  /** Forwards a clock tick (unix ms) to every live chain; expired bets start settling. */
  tick(now: number): void {
    for (const actor of this.live.values()) actor.send({ type: 'TICK', now });
  }

  /** Starts the settlement clock: `tick(now())` every `intervalMs` (spec section 1.3). */
  startClock(intervalMs: number, now: () => number = Date.now): void {
    const relay = createActor(
      fromCallback<TickEvent>(({ receive }) => {
        receive((event) => this.tick(event.now));
      }),
    ).start();
    const clock = createActor(clockMachine, { input: { intervalMs, target: relay, now }, clock: this.options.clock }).start();
    this.clockActors.push(relay, clock);
  }

  /** Ids of the live chains. */
  chainIds(): string[] {
    return [...this.live.keys()];
  }

  /** The persisted snapshot of a live chain, as it would be saved; undefined when not live. */
  persistedSnapshotOf(chainId: string): unknown {
    const actor = this.live.get(chainId);
    return actor ? (JSON.parse(JSON.stringify(actor.getPersistedSnapshot())) as unknown) : undefined;
  }

  /** The current snapshot of a live chain (state value and context). */
  snapshotOf(chainId: string) {
    return this.live.get(chainId)?.getSnapshot();
  }

  /** Resolves once every save started so far is written and its events published. */
  async settled(): Promise<void> {
    while (this.saving.size > 0) await Promise.all([...this.saving.values()]);
  }

  /** Stops the clock and every actor (pending effects are abandoned, snapshots stay live), then waits for saves. */
  async stop(): Promise<void> {
    for (const ref of this.clockActors) ref.stop();
    this.clockActors = [];
    for (const actor of this.live.values()) actor.stop();
    this.live.clear();
    await this.settled();
  }
}
