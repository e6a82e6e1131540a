/**
 * The effects a bet series needs from the outside world, as the runtime implements them
 * (in bigint, like `ChainPort`), and their translation into the invoked actors of
 * `machines/bet.ts` (decimal strings, JSON-safe). Every effect may run more than once for the
 * same bet (retries; a restart re-runs a pending effect), so each must be idempotent.
 *
 * @example
 *   const actors = betEffectActors({ priceExit, closeOnChain, closeAndReplace });
 *   const machine = betMachine.provide({ actors });
 */
import { fromPromise } from 'xstate';
import type { BetRef } from '../../../adapters/chain/port.ts';
import type { CloseInput, CloseOutput, PriceExitOutput, ReplaceInput, ReplaceOutput } from '../../../machines/bet-types.ts';
import type { BetStatus, Side } from '../../../kernel/domain.ts';
import type { SettledStatus } from '../../../kernel/domain.ts';

/** Exit price of an expired bet (docs/decisions.md#entry-and-exit-prices), from the local price history. */
export type PriceExit = { kind: 'price'; value: bigint } | { kind: 'wait' } | { kind: 'refund_at_entry' };

/**
 * A close made by this call, or found made on chain (then with the chain's exit price, and the
 * transaction that made it when the chain could say).
 */
export type CloseResult =
  { kind: 'closed'; status: BetStatus; signature: string } | { kind: 'already_closed'; status: BetStatus; exitPrice: bigint; signature: string | null };

/** The replacement of a tied bet (made now or by an earlier attempt), or a bet found closed without one. */
export type ReplaceResult =
  | { kind: 'replaced'; signature: string | null; next: { id: bigint; seq: bigint; entryPrice: bigint; expireTime: bigint | number } }
  | { kind: 'already_closed'; status: BetStatus; exitPrice: bigint; signature: string | null };

/**
 * What the gateway runtime implements for settlement. `signal` aborts when the actor stops.
 * - `priceExit`: `wait` while no usable price exists yet; `refund_at_entry` after 300 s without one.
 * - `closeOnChain`: reads the bet first; status != 0 answers `already_closed` and sends nothing;
 *   `refund` returns the stake (refund_expired once the chain allows it, else a close at the entry price).
 * - `closeAndReplace`: close_bet + place_bet (same bettor, side, amount, latest price as entry)
 *   in one transaction; when the bet is already closed it looks for the replacement (the
 *   bettor's open bet with a higher id) and answers `replaced` with it, else `already_closed`.
 * Throwing means "try again later" (the machine backs off and retries).
 */
export interface BetEffects {
  priceExit(req: { betId: bigint; entryPrice: bigint; expireTime: number }, signal: AbortSignal): Promise<PriceExit>;
  closeOnChain(req: { betId: bigint; ref: BetRef; exitPrice: bigint; refund: boolean }, signal: AbortSignal): Promise<CloseResult>;
  closeAndReplace(req: { betId: bigint; ref: BetRef; exitPrice: bigint; side: Side; amount: bigint }, signal: AbortSignal): Promise<ReplaceResult>;
}

/** A settled status, or an error: a close that reports status 0 has not happened (retried). */
function settled(status: BetStatus, betId: string): SettledStatus {
  if (status === 0) throw new Error(`bet ${betId} is still open on chain after close`);
  return status;
}

/** The invoked actors of the bet machine, built on the runtime's effects. */
export function betEffectActors(effects: BetEffects) {
  return {
    priceExit: fromPromise<PriceExitOutput, { betId: string; entryPrice: string; expireTime: number }>(async ({ input, signal }) => {
      const out = await effects.priceExit({ betId: BigInt(input.betId), entryPrice: BigInt(input.entryPrice), expireTime: input.expireTime }, signal);
      return out.kind === 'price' ? { kind: 'price', value: out.value.toString() } : out;
    }),
    closeOnChain: fromPromise<CloseOutput, CloseInput>(async ({ input, signal }) => {
      const out = await effects.closeOnChain(
        { betId: BigInt(input.betId), ref: { bettor: input.bettor, seq: BigInt(input.seq) }, exitPrice: BigInt(input.exitPrice), refund: input.refund },
        signal,
      );
      const status = settled(out.status, input.betId);
      return out.kind === 'closed'
        ? { kind: 'closed', status, signature: out.signature }
        : { kind: 'already_closed', status, exitPrice: out.exitPrice.toString(), signature: out.signature };
    }),
    closeAndReplace: fromPromise<ReplaceOutput, ReplaceInput>(async ({ input, signal }) => {
      const out = await effects.closeAndReplace(
        {
          betId: BigInt(input.betId),
          ref: { bettor: input.bettor, seq: BigInt(input.seq) },
          exitPrice: BigInt(input.exitPrice),
          side: input.side,
          amount: BigInt(input.amountUnits),
        },
        signal,
      );
      if (out.kind === 'already_closed')
        return { kind: 'already_closed', status: settled(out.status, input.betId), exitPrice: out.exitPrice.toString(), signature: out.signature };
      const next = {
        id: out.next.id.toString(),
        seq: out.next.seq.toString(),
        entryPrice: out.next.entryPrice.toString(),
        expireTime: Number(out.next.expireTime),
      };
      return { kind: 'replaced', signature: out.signature, next };
    }),
  };
}
