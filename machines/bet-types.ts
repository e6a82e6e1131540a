/**
 * Types of the bet-chain machine (`bet.ts`). Everything here is JSON-serialisable: prices,
 * amounts and ids are decimal strings (price x 1e8, token base units), so a persisted
 * snapshot survives `JSON.stringify`/`JSON.parse` unchanged (docs/architecture.md#actors-and-machines).
 */
import type { SettledStatus, Side } from '../kernel/domain.ts';

/** What the runtime knows when it starts an actor for a freshly placed bet. */
export interface BetInput {
  id: string;
  bettor: string;
  /** the bet's address on chain is ["bet", bettor, seq]; decimal string */
  seq: string;
  side: Side;
  amountUnits: string;
  /** price x 1e8, decimal string */
  entryPrice: string;
  /** unix seconds */
  expireTime: number;
  /** Profile B: a tie is replayed as a new bet (docs/gateway-api.md#bet-status) */
  replayTies?: boolean;
  /** Profile B: `GW_MAX_REPLAYS`, the most replays one chain may have (docs/decisions.md#the-replay-cap) */
  maxReplays?: number;
  /** signature of the transaction that placed the bet; null when unknown (a bet adopted from the chain) */
  placeTx?: string | null;
}

/** State of one bet series: the bet now in play plus what the chain has done so far. */
export interface BetContext {
  /** id of the first bet of the series: its key in the snapshot store */
  seriesId: string;
  /** id of the bet now in play */
  id: string;
  /** seq of the bet now in play (its address with `bettor`) */
  seq: string;
  /** the tied bet this one replaced; null for the first bet of a chain */
  prevId: string | null;
  bettor: string;
  side: Side;
  amountUnits: string;
  entryPrice: string;
  expireTime: number;
  replayTies: boolean;
  maxReplays: number;
  /** replays made so far in this chain (0 for the first bet) */
  replayCount: number;
  /** exit price chosen for the close; null until priced */
  exitPrice: string | null;
  /** true when no usable price came for 300 s: the stake is refunded (refund_expired, or a close at the entry price) */
  refundAtEntry: boolean;
  /** contract status once settled (0 while open) */
  status: 0 | SettledStatus;
  /** failures of the effect now being retried (0 when none) */
  attempt: number;
  /** message of the last effect failure, for operators reading the snapshot */
  lastError: string | null;
  /** signature of the transaction that placed the bet now in play (a Profile B replay: the close_bet + place_bet); null when unknown */
  placeTx: string | null;
  /** signature of the transaction that closed the bet now in play (sent here, or found on chain); null when unknown */
  closeSignature: string | null;
}

/** Events the machine accepts from the runtime. */
export type BetEvent =
  /** clock tick; `now` is unix milliseconds */
  | { type: 'TICK'; now: number }
  /** sent once after rehydration: a retry that was waiting is made at once (xstate does not persist delays) */
  | { type: 'RESUME' };

/** Input of the `priceExit` effect. */
export interface PriceExitInput {
  betId: string;
  entryPrice: string;
  expireTime: number;
}

/** Output of `priceExit`: the exit price, "no usable price yet", or "refund at entry" after 300 s without one. */
export type PriceExitOutput = { kind: 'price'; value: string } | { kind: 'wait' } | { kind: 'refund_at_entry' };

/** Input of the `closeOnChain` effect (close_bet; refund_expired for a refund). */
export interface CloseInput {
  betId: string;
  bettor: string;
  seq: string;
  exitPrice: string;
  /** the 300 s refund: no usable price came */
  refund: boolean;
}

/**
 * A close that this call made, or found already made on chain (then the chain's exit price is
 * reported, and the signature of the transaction that made it when the chain could say).
 */
export type CloseOutput =
  { kind: 'closed'; status: SettledStatus; signature: string } | { kind: 'already_closed'; status: SettledStatus; exitPrice: string; signature: string | null };

/** Input of the `closeAndReplace` effect (close_bet + place_bet in one transaction, Profile B tie). */
export interface ReplaceInput {
  betId: string;
  seq: string;
  exitPrice: string;
  bettor: string;
  side: Side;
  amountUnits: string;
}

/**
 * The replacement bet now in play, or a bet that was found closed on chain without one (the chain
 * ends). `signature` is the close_bet + place_bet transaction; null when it was made earlier and
 * the chain could not say by which transaction.
 */
export type ReplaceOutput =
  | { kind: 'replaced'; signature: string | null; next: { id: string; seq: string; entryPrice: string; expireTime: number } }
  | { kind: 'already_closed'; status: SettledStatus; exitPrice: string; signature: string | null };

/** Final output of a chain. */
export interface BetOutput {
  seriesId: string;
  id: string;
  status: SettledStatus;
  exitPrice: string;
  replayCount: number;
}
