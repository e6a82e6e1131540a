/**
 * Port: the venue's public trade tape (docs/exchange-api.md#binance-trades): every fill the exchange
 * made, of every account, anonymous, per symbol, with an integer id that increases per symbol and
 * is never given twice. Bounded: the newest `TAPE_CAPACITY` trades of a symbol are kept.
 * Adapters: `memory.ts` (one process, the embedded default), `redis.ts` (shared by every exchange
 * process on one Redis, kept across restarts); the shared behaviour is `contract.ts`.
 */
import type { BookSymbol } from '../../../kernel/domain.ts';

/** One trade as the tape keeps it; amounts are decimal strings with 8 fraction digits. */
export interface TapeTradeBody {
  price: string;
  qty: string;
  /** price x qty */
  quoteQty: string;
  /** unix ms of the fill */
  time: number;
  /** the buyer was the resting (maker) side */
  isBuyerMaker: boolean;
}

/** A trade on the tape: with its symbol and id. */
export interface TapeTrade extends TapeTradeBody {
  id: number;
  symbol: BookSymbol;
}

/** Trades kept per symbol (docs/exchange-api.md#binance-trades). */
export const TAPE_CAPACITY = 1000;

/** The tape store. */
export interface TapeStore {
  /** Appends `trades` (oldest first) to `symbol`'s tape; answers them with their ids, consecutive and above every id given before. */
  append(symbol: BookSymbol, trades: readonly TapeTradeBody[]): Promise<TapeTrade[]>;
  /** The newest `limit` trades held, oldest first. */
  latest(symbol: BookSymbol, limit: number): Promise<TapeTrade[]>;
  /** At most `limit` trades held with id >= `fromId`, oldest first. */
  from(symbol: BookSymbol, fromId: number, limit: number): Promise<TapeTrade[]>;
  close(): Promise<void>;
}
