/**
 * The real bet runtime (`LiveBets`) on an in-memory snapshot store, a simulated xstate clock
 * and scripted effects, driven step by step by machine-level events: a tick goes through
 * `tick`, an effect outcome answers the pending call, a retry timer advances the clock, and
 * `RESUME` is a whole restart (stop, boot a fresh runtime from the same store). The store's
 * commits carry the bet history records (`history/records.ts`) into a memory bet history.
 */
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { SimulatedClock, type EventObject } from 'xstate';
import type { BetRecord } from '../../../adapters/store/bet-history/port.ts';
import { createMemoryBetHistory } from '../../../adapters/store/bet-history/memory.ts';
import { createMemoryEventLog } from '../../../adapters/store/event-log/memory.ts';
import { createMemoryPriceHistory } from '../../../adapters/store/price-history/memory.ts';
import { createMemorySnapshotStore } from '../../../adapters/store/snapshot/memory.ts';
import type { RetryPolicy } from '../../../kernel/backoff.ts';
import type { BetEmittedEvent } from '../../../machines/bet-events.ts';
import type { BetInput, CloseOutput, PriceExitOutput, ReplaceOutput } from '../../../machines/bet-types.ts';
import { LiveBets } from '../../../runtime/gateway/bets/live-bets.ts';
import { betRecords } from '../../../runtime/gateway/history/records.ts';
import type { CloseResult, PriceExit, ReplaceResult } from '../../../runtime/gateway/bets/effects.ts';
import { ScriptedEffects, type EffectName } from './scripted-effects.ts';
import { quietLog } from '../../support/quiet-log.ts';
import { recordInto } from '../../support/published.ts';

/** The port-side (bigint) answer for a machine-side effect output. */
export function toPortAnswer(output: PriceExitOutput | CloseOutput | ReplaceOutput): PriceExit | CloseResult | ReplaceResult {
  switch (output.kind) {
    case 'price':
      return { kind: 'price', value: BigInt(output.value) };
    case 'already_closed':
      return { kind: 'already_closed', status: output.status, exitPrice: BigInt(output.exitPrice), signature: output.signature };
    case 'replaced':
      return {
        kind: 'replaced',
        signature: output.signature,
        next: { id: BigInt(output.next.id), seq: BigInt(output.next.seq), entryPrice: BigInt(output.next.entryPrice), expireTime: output.next.expireTime },
      };
    default:
      return output;
  }
}

/** One runtime under test plus everything it touched. */
export class BetHarness {
  readonly clock = new SimulatedClock();
  readonly history = createMemoryBetHistory();
  readonly store = createMemorySnapshotStore<BetEmittedEvent, BetRecord>(createMemoryEventLog<BetEmittedEvent>(), this.history);
  private readonly records = betRecords({
    stored: (id) => this.history.get(id),
    history: createMemoryPriceHistory(),
    source: 'model',
    multiplierBps: async () => 13_000n,
  });
  readonly fx = new ScriptedEffects();
  readonly published: BetEmittedEvent[] = [];
  runtime!: LiveBets;
  restarts = 0;

  constructor(readonly retry: RetryPolicy) {}

  private boot(): Promise<LiveBets> {
    return LiveBets.boot({
      store: this.store,
      effects: this.fx.effects,
      records: this.records,
      publish: recordInto(this.published),
      clock: this.clock,
      log: quietLog,
      retry: this.retry,
    });
  }

  async start(input: BetInput): Promise<void> {
    this.runtime = await this.boot();
    this.runtime.open(input);
    await this.flush();
  }

  /** Lets pending promise callbacks run and every save finish. */
  async flush(): Promise<void> {
    for (let i = 0; i < 3; i++) {
      await nextMacrotask();
      await this.runtime.settled();
    }
  }

  /** Stops the runtime as a crash would (pending effects abandoned) and boots a fresh one from the store. */
  async restart(): Promise<void> {
    await this.runtime.stop();
    this.fx.abandonPending();
    this.runtime = await this.boot();
    this.restarts += 1;
    await this.flush();
  }

  /** Makes the runtime live through one machine-level event; `delayMs` is the retry delay expected by the oracle. */
  async step(event: EventObject & { now?: number; output?: unknown; error?: unknown }, delayMs: number): Promise<void> {
    const { type } = event;
    if (type === 'TICK') this.runtime.tick(event.now ?? 0);
    else if (type === 'RESUME') await this.restart();
    else if (type.startsWith('xstate.after.')) this.clock.increment(delayMs);
    else if (type.startsWith('xstate.done.actor.')) {
      const effect = type.slice('xstate.done.actor.'.length) as EffectName;
      this.fx.answer(effect, toPortAnswer(event.output as PriceExitOutput | CloseOutput | ReplaceOutput));
    } else if (type.startsWith('xstate.error.actor.')) {
      this.fx.fail(type.slice('xstate.error.actor.'.length) as EffectName, String(event.error));
    } else throw new Error(`no way to make the runtime see ${type}`);
    await this.flush();
  }
}
