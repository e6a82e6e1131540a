/**
 * One bet series as a pure XState machine (docs/gateway-api.md#bet-status; docs/architecture.md#the-bet-series-machine). No I/O here:
 * pricing and the chain calls are invoked actors (`priceExit`, `closeOnChain`,
 * `closeAndReplace`) that the runtime supplies with `machine.provide({ actors })`.
 *
 *   open ──TICK (expired)──▶ settling.pricing ──price──▶ settling.closing ──▶ payout_done | house_won | refunded
 *     ▲                          │ wait                    (Profile B tie, replays left)
 *     └──── open.awaitingPrice ◀─┘                     settling.replacing ──replaced──▶ open (next bet)
 *
 * A failed effect goes to `<effect>Backoff` and is retried after the `retryBackoff` delay
 * (base, doubling, capped; `machine.provide({ delays })` shrinks it in tests). xstate does not
 * persist delays, so the runtime sends `RESUME` to a rehydrated chain to retry at once.
 *
 * Outside events are `emit`ted: `bet_open` on creation, `bet_replay` when a tie is replayed,
 * `bet_closed` on entry to a final state. A final state is persisted and entry actions do not
 * run on restore, so a rehydrated chain never announces its end twice; a restart in the middle
 * of a close re-runs the (idempotent) close, which answers `already_closed`, and the single
 * `bet_closed` is emitted then.
 *
 * @example
 *   const actor = createActor(betMachine.provide({ actors }), { input: { id: '7', ... } }).start();
 *   actor.send({ type: 'TICK', now: Date.now() });
 */
import { assign, emit, fromPromise, setup } from 'xstate';
import { betClosed, betOpen, betReplay, type BetEmittedEvent } from './bet-events.ts';
import type {
  BetContext,
  BetEvent,
  BetInput,
  BetOutput,
  CloseInput,
  CloseOutput,
  PriceExitInput,
  PriceExitOutput,
  ReplaceInput,
  ReplaceOutput,
} from './bet-types.ts';
import type { SettledStatus } from '../kernel/domain.ts';
import { backoffMs, type RetryPolicy } from '../kernel/backoff.ts';

/** Default retry policy of settlement effects. */
export const DEFAULT_RETRY: RetryPolicy = { baseMs: 500, maxMs: 30_000 };

const notProvided = (name: string) => async (): Promise<never> => {
  throw new Error(`effect ${name} was not provided by the runtime`);
};

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** A Profile B tie that may still be replayed: the machine has both prices, so it knows the contract will say 3. */
function replaysTie(context: BetContext, output: PriceExitOutput): boolean {
  return output.kind === 'price' && context.replayTies && context.replayCount < context.maxReplays && BigInt(output.value) === BigInt(context.entryPrice);
}

/** Price used by close_bet: the priced exit, or the entry price for a 300 s refund (docs/decisions.md#entry-and-exit-prices). */
const closePrice = (context: BetContext, output: PriceExitOutput): string | null =>
  output.kind === 'price' ? output.value : output.kind === 'refund_at_entry' ? context.entryPrice : null;

/** Status of a close that ended the chain; null for a replacement. */
const settledStatus = (out: CloseOutput | ReplaceOutput): SettledStatus | null => (out.kind === 'replaced' ? null : out.status);

/** Context after a close: the contract's status, and the chain's exit price when the close was found already made. */
function settledPatch(context: BetContext, out: CloseOutput | ReplaceOutput): Partial<BetContext> {
  if (out.kind === 'replaced') return {};
  return {
    status: out.status,
    exitPrice: out.kind === 'already_closed' ? out.exitPrice : context.exitPrice,
    closeSignature: out.signature,
    attempt: 0,
    lastError: null,
  };
}

/** Context after a replacement: the chain goes on as the new bet (docs/gateway-api.md#bet-status, Profile B). */
function replacedPatch(context: BetContext, out: ReplaceOutput): Partial<BetContext> {
  if (out.kind !== 'replaced') return {};
  return {
    prevId: context.id,
    id: out.next.id,
    seq: out.next.seq,
    entryPrice: out.next.entryPrice,
    expireTime: out.next.expireTime,
    replayCount: context.replayCount + 1,
    exitPrice: null,
    placeTx: out.signature,
    closeSignature: null,
    attempt: 0,
    lastError: null,
  };
}

const failurePatch = (context: BetContext, error: unknown): Partial<BetContext> => ({
  attempt: context.attempt + 1,
  lastError: errorText(error),
});

/** The bet-chain machine; the runtime provides `priceExit`, `closeOnChain`, `closeAndReplace` and may override `retryBackoff`. */
export const betMachine = setup({
  types: {
    context: {} as BetContext,
    input: {} as BetInput,
    events: {} as BetEvent,
    emitted: {} as BetEmittedEvent,
    output: {} as BetOutput,
  },
  actors: {
    priceExit: fromPromise<PriceExitOutput, PriceExitInput>(notProvided('priceExit')),
    closeOnChain: fromPromise<CloseOutput, CloseInput>(notProvided('closeOnChain')),
    closeAndReplace: fromPromise<ReplaceOutput, ReplaceInput>(notProvided('closeAndReplace')),
  },
  delays: {
    retryBackoff: ({ context }) => backoffMs(context.attempt, DEFAULT_RETRY),
  },
  guards: {
    expired: ({ context, event }) => event.type === 'TICK' && event.now >= context.expireTime * 1000,
  },
  actions: {
    announceOpen: emit(({ context }) => betOpen(context)),
    announceClosed: emit(({ context }) => betClosed(context)),
    announceReplay: emit(({ context }) => betReplay(context)),
  },
}).createMachine({
  id: 'bet',
  context: ({ input }) => ({
    seriesId: input.id,
    id: input.id,
    seq: input.seq,
    prevId: null,
    bettor: input.bettor,
    side: input.side,
    amountUnits: input.amountUnits,
    entryPrice: input.entryPrice,
    expireTime: input.expireTime,
    replayTies: input.replayTies ?? false,
    maxReplays: input.maxReplays ?? 0,
    replayCount: 0,
    exitPrice: null,
    refundAtEntry: false,
    status: 0,
    attempt: 0,
    lastError: null,
    placeTx: input.placeTx ?? null,
    closeSignature: null,
  }),
  // Root entry runs once, when the chain is created, never on restore (docs/gateway-api.md#events: one bet_open per bet).
  entry: 'announceOpen',
  initial: 'open',
  states: {
    open: {
      initial: 'placed',
      on: { TICK: { guard: 'expired', target: 'settling' } },
      states: {
        placed: {},
        /** priced too early, or the price history has a gap: the next tick asks again */
        awaitingPrice: {},
      },
    },
    settling: {
      initial: 'pricing',
      states: {
        pricing: {
          invoke: {
            id: 'priceExit',
            src: 'priceExit',
            input: ({ context }) => ({ betId: context.id, entryPrice: context.entryPrice, expireTime: context.expireTime }),
            onDone: [
              {
                guard: ({ event }) => event.output.kind === 'wait',
                target: '#bet.open.awaitingPrice',
                actions: assign({ attempt: 0, lastError: null }),
              },
              {
                guard: ({ context, event }) => replaysTie(context, event.output),
                target: 'replacing',
                actions: assign(({ context, event }) => ({ exitPrice: closePrice(context, event.output), attempt: 0, lastError: null })),
              },
              {
                target: 'closing',
                actions: assign(({ context, event }) => ({
                  exitPrice: closePrice(context, event.output),
                  refundAtEntry: event.output.kind === 'refund_at_entry',
                  attempt: 0,
                  lastError: null,
                })),
              },
            ],
            onError: { target: 'pricingBackoff', actions: assign(({ context, event }) => failurePatch(context, event.error)) },
          },
        },
        pricingBackoff: { after: { retryBackoff: 'pricing' }, on: { RESUME: 'pricing' } },
        closing: {
          invoke: {
            id: 'closeOnChain',
            src: 'closeOnChain',
            input: ({ context }) => ({
              betId: context.id,
              bettor: context.bettor,
              seq: context.seq,
              exitPrice: context.exitPrice ?? context.entryPrice,
              refund: context.refundAtEntry,
            }),
            onDone: [
              {
                guard: ({ event }) => settledStatus(event.output) === 1,
                target: '#bet.payout_done',
                actions: assign(({ context, event }) => settledPatch(context, event.output)),
              },
              {
                guard: ({ event }) => settledStatus(event.output) === 2,
                target: '#bet.house_won',
                actions: assign(({ context, event }) => settledPatch(context, event.output)),
              },
              {
                guard: ({ event }) => settledStatus(event.output) === 3,
                target: '#bet.refunded',
                actions: assign(({ context, event }) => settledPatch(context, event.output)),
              },
            ],
            onError: { target: 'closingBackoff', actions: assign(({ context, event }) => failurePatch(context, event.error)) },
          },
        },
        closingBackoff: { after: { retryBackoff: 'closing' }, on: { RESUME: 'closing' } },
        replacing: {
          invoke: {
            id: 'closeAndReplace',
            src: 'closeAndReplace',
            input: ({ context }) => ({
              betId: context.id,
              seq: context.seq,
              exitPrice: context.exitPrice ?? context.entryPrice,
              bettor: context.bettor,
              side: context.side,
              amountUnits: context.amountUnits,
            }),
            onDone: [
              {
                guard: ({ event }) => event.output.kind === 'replaced',
                target: '#bet.open',
                // the tied bet ends silently; the chain goes on as the replacement (docs/gateway-api.md#bet-status, Profile B)
                actions: [assign(({ context, event }) => replacedPatch(context, event.output)), 'announceReplay'],
              },
              {
                guard: ({ event }) => settledStatus(event.output) === 1,
                target: '#bet.payout_done',
                actions: assign(({ context, event }) => settledPatch(context, event.output)),
              },
              {
                guard: ({ event }) => settledStatus(event.output) === 2,
                target: '#bet.house_won',
                actions: assign(({ context, event }) => settledPatch(context, event.output)),
              },
              {
                guard: ({ event }) => settledStatus(event.output) === 3,
                target: '#bet.refunded',
                actions: assign(({ context, event }) => settledPatch(context, event.output)),
              },
            ],
            onError: { target: 'replacingBackoff', actions: assign(({ context, event }) => failurePatch(context, event.error)) },
          },
        },
        replacingBackoff: { after: { retryBackoff: 'replacing' }, on: { RESUME: 'replacing' } },
      },
    },
    payout_done: { type: 'final', entry: 'announceClosed' },
    house_won: { type: 'final', entry: 'announceClosed' },
    refunded: { type: 'final', entry: 'announceClosed' },
  },
  output: ({ context }) => ({
    seriesId: context.seriesId,
    id: context.id,
    status: context.status === 0 ? 3 : context.status,
    exitPrice: context.exitPrice ?? context.entryPrice,
    replayCount: context.replayCount,
  }),
});

/**
 * A persisted snapshot as this version restores it: snapshots written before the series got its
 * name carry `chainId` for `seriesId`, and none before placements were recorded carries `placeTx`.
 * Anything that is not such a snapshot is returned as it is (the caller validates it).
 */
export function upgradeBetSnapshot(snapshot: unknown): unknown {
  if (typeof snapshot !== 'object' || snapshot === null) return snapshot;
  const s = snapshot as { context?: Record<string, unknown> };
  if (typeof s.context !== 'object' || s.context === null) return snapshot;
  const { chainId, ...context } = s.context;
  if (context.seriesId === undefined && typeof chainId === 'string') context.seriesId = chainId;
  if (context.placeTx === undefined) context.placeTx = null;
  return { ...s, context };
}
