/**
 * The world around one bet series, for model-based tests: which concrete events can reach the
 * machine in a given state (clock ticks, effect answers and failures, retry timers, restarts), and
 * an oracle written from docs/gateway-api.md (#bet-status and #events) that says what the outside
 * world must see after each of them — independent of the machine's own bookkeeping.
 */
import { __unsafe_getAllOwnEventDescriptors, type AnyMachineSnapshot, type EventObject } from 'xstate';
import { type BetEmittedEvent } from '../../../machines/bet-events.ts';
import type { BetContext, BetInput, CloseOutput, PriceExitOutput, ReplaceOutput } from '../../../machines/bet-types.ts';
import type { EffectCall, EffectName } from './scripted-effects.ts';
import { STATUS_NAMES } from '../../../kernel/domain.ts';
import type { SettledStatus } from '../../../kernel/domain.ts';

/** Contract outcome (docs/gateway-api.md#bet-status) for a bet of `side` entered at `entry` and closed at `exit`. */
export function contractOutcome(side: 'UP' | 'DOWN', entry: bigint, exit: bigint): SettledStatus {
  if (exit === entry) return 3;
  return exit > entry === (side === 'UP') ? 1 : 2;
}

/** Concrete events the world can send in `snap`; effect failures only while fewer than `maxFailures` in a row. */
export function worldEvents(snap: AnyMachineSnapshot, maxFailures: number): EventObject[] {
  const c = snap.context as BetContext;
  const entry = BigInt(c.entryPrice);
  const candidates: EventObject[] = [{ type: 'TICK', now: c.expireTime * 1000 - 1 } as EventObject, { type: 'TICK', now: c.expireTime * 1000 } as EventObject];
  const prices: PriceExitOutput[] = [
    { kind: 'price', value: String(entry + 250n) },
    { kind: 'price', value: String(entry - 250n) },
    { kind: 'price', value: String(entry) },
    { kind: 'wait' },
    { kind: 'refund_at_entry' },
  ];
  for (const output of prices) candidates.push({ type: 'xstate.done.actor.priceExit', output } as EventObject);
  if (c.exitPrice !== null) {
    const status = contractOutcome(c.side, entry, BigInt(c.exitPrice));
    // a close found already made reports the chain's exit price, which may differ from a re-priced one
    const chainExit = BigInt(c.exitPrice) + 7n;
    const closes: CloseOutput[] = [
      { kind: 'closed', status, signature: `close-${c.id}` },
      { kind: 'already_closed', status: contractOutcome(c.side, entry, chainExit), exitPrice: String(chainExit), signature: `found-close-${c.id}` },
    ];
    for (const output of closes) candidates.push({ type: 'xstate.done.actor.closeOnChain', output } as EventObject);
    const replaces: ReplaceOutput[] = [
      {
        kind: 'replaced',
        signature: `replace-${c.id}`,
        next: { id: String(BigInt(c.id) + 10n), seq: String(BigInt(c.seq) + 1n), entryPrice: String(entry + 1000n), expireTime: c.expireTime + 15 },
      },
      { kind: 'already_closed', status: 3, exitPrice: c.exitPrice, signature: null },
    ];
    for (const output of replaces) candidates.push({ type: 'xstate.done.actor.closeAndReplace', output } as EventObject);
  }
  if (c.attempt < maxFailures) {
    for (const name of ['priceExit', 'closeOnChain', 'closeAndReplace']) {
      candidates.push({ type: `xstate.error.actor.${name}`, error: `${name} failed (${c.attempt + 1})` } as EventObject);
    }
  }
  return __unsafe_getAllOwnEventDescriptors(snap).flatMap((type) => {
    const matching = candidates.filter((e) => e.type === type);
    if (matching.length > 0 || type.startsWith('xstate.error.') || type.startsWith('xstate.done.')) return matching;
    return [{ type }]; // RESUME and retry timers carry no data
  });
}

interface OracleBet {
  id: string;
  seq: string;
  entryPrice: bigint;
  expireTime: number;
  replayCount: number;
}

type Phase = 'open' | EffectName | 'backoff' | 'final';

/** What the outside world must have seen so far, derived from docs/gateway-api.md and the events alone. */
export class BetOracle {
  readonly events: BetEmittedEvent[];
  readonly calls: EffectCall[] = [];
  private bet: OracleBet;
  private phase: Phase = 'open';
  private exit: bigint | null = null;
  private failures = 0;
  private retrying: EffectName | null = null;
  private readonly lastRequest = new Map<EffectName, Record<string, unknown>>();

  constructor(private readonly input: Required<BetInput>) {
    this.bet = { id: input.id, seq: input.seq, entryPrice: BigInt(input.entryPrice), expireTime: input.expireTime, replayCount: 0 };
    this.events = [
      {
        type: 'bet_open',
        id: input.id,
        bettor: input.bettor,
        side: input.side,
        amountUnits: input.amountUnits,
        entryPrice: Number(input.entryPrice),
        expireTime: input.expireTime,
      },
    ];
  }

  /** Failures in a row of the effect being retried (for the expected backoff delay). */
  get failuresInARow(): number {
    return this.failures;
  }

  private expectCall(effect: EffectName, request: Record<string, unknown>): void {
    this.phase = effect;
    this.lastRequest.set(effect, request);
    this.calls.push({ effect, request });
  }

  private closed(status: SettledStatus, exitPrice: bigint): void {
    this.events.push({
      type: 'bet_closed',
      id: this.bet.id,
      bettor: this.input.bettor,
      exitPrice: Number(exitPrice),
      status,
      statusName: STATUS_NAMES[status],
    });
    this.phase = 'final';
  }

  /** Applies one event of the world. */
  apply(event: EventObject & { now?: number; output?: unknown }): void {
    const { type } = event;
    if (type === 'TICK') {
      if (this.phase === 'open' && (event.now ?? 0) >= this.bet.expireTime * 1000) {
        this.expectCall('priceExit', { betId: BigInt(this.bet.id), entryPrice: this.bet.entryPrice, expireTime: this.bet.expireTime });
      }
      return;
    }
    if (type === 'RESUME' || type.startsWith('xstate.after.')) {
      if (this.phase !== 'backoff' || !this.retrying) throw new Error(`${type} outside a backoff`);
      this.expectCall(this.retrying, this.lastRequest.get(this.retrying) ?? {});
      return;
    }
    if (type.startsWith('xstate.error.actor.')) {
      this.retrying = this.phase as EffectName;
      this.phase = 'backoff';
      this.failures += 1;
      return;
    }
    this.failures = 0;
    if (type === 'xstate.done.actor.priceExit') return this.priced(event.output as PriceExitOutput);
    const out = event.output as CloseOutput | ReplaceOutput;
    if (out.kind === 'replaced') {
      const prev = this.bet;
      this.bet = {
        id: out.next.id,
        seq: out.next.seq,
        entryPrice: BigInt(out.next.entryPrice),
        expireTime: out.next.expireTime,
        replayCount: prev.replayCount + 1,
      };
      this.events.push({
        type: 'bet_replay',
        id: this.bet.id,
        prevId: prev.id,
        bettor: this.input.bettor,
        side: this.input.side,
        amountUnits: this.input.amountUnits,
        entryPrice: Number(this.bet.entryPrice),
        expireTime: this.bet.expireTime,
        replayCount: this.bet.replayCount,
      });
      this.phase = 'open';
      return;
    }
    this.closed(out.status, out.kind === 'already_closed' ? BigInt(out.exitPrice) : (this.exit ?? 0n));
  }

  private priced(out: PriceExitOutput): void {
    if (out.kind === 'wait') {
      this.phase = 'open';
      return;
    }
    this.exit = out.kind === 'price' ? BigInt(out.value) : this.bet.entryPrice;
    const tie = out.kind === 'price' && this.exit === this.bet.entryPrice;
    if (this.input.replayTies && tie && this.bet.replayCount < this.input.maxReplays) {
      this.expectCall('closeAndReplace', {
        betId: BigInt(this.bet.id),
        ref: { bettor: this.input.bettor, seq: BigInt(this.bet.seq) },
        exitPrice: this.exit,
        side: this.input.side,
        amount: BigInt(this.input.amountUnits),
      });
    } else {
      this.expectCall('closeOnChain', {
        betId: BigInt(this.bet.id),
        ref: { bettor: this.input.bettor, seq: BigInt(this.bet.seq) },
        exitPrice: this.exit,
        refund: out.kind === 'refund_at_entry',
      });
    }
  }
}
