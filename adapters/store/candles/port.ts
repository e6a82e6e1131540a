/**
 * Port: the exchange's price history for klines (docs/exchange-api.md#binance-klines): one-minute
 * candles of each symbol's mid price, made from the books the exchange takes, kept for a bounded
 * time. Adapters: `memory.ts`, `file.ts` (DATA_DIR, the embedded default), `redis.ts`; the shared
 * behaviour is `contract.ts`.
 */
import type { BookSymbol } from '../../../kernel/domain.ts';

/**
 * The venue's trades in a candle (docs/exchange-api.md#binance-klines): amounts are decimal strings
 * with 8 fraction digits; `firstId`/`lastId` are trade ids of the tape.
 */
export interface CandleTrades {
  volume: string;
  quoteVolume: string;
  count: number;
  /** of trades whose buyer took liquidity */
  takerBuyVolume: string;
  takerBuyQuoteVolume: string;
  firstId: number;
  lastId: number;
}

/** One minute of a symbol's mid price; prices are decimal strings with 8 fraction digits. */
export interface Candle {
  /** unix ms of the minute's start */
  openTime: number;
  open: string;
  high: string;
  low: string;
  close: string;
  /** books that made it */
  books: number;
  /** the venue's trades in the minute; absent when none */
  trades?: CandleTrades;
}

/** How many one-minute candles a symbol keeps: 7 days. */
export const CANDLE_RETENTION = 7 * 24 * 60;

/** The candle store. */
export interface CandleStore {
  /** Stores `candle`, replacing one with the same openTime; keeps at most the newest `CANDLE_RETENTION` (or the store's own bound). */
  put(symbol: BookSymbol, candle: Candle): Promise<void>;
  /** Candles with `fromMs <= openTime <= toMs`, oldest first: the first `limit` of them, or the last `limit` when `newest`. */
  range(symbol: BookSymbol, fromMs: number, toMs: number, limit: number, newest?: boolean): Promise<Candle[]>;
  close(): Promise<void>;
}

/** Picks the first or last `limit` of candles sorted oldest first. */
export const pickLimit = (sorted: Candle[], limit: number, newest = false): Candle[] =>
  newest ? sorted.slice(Math.max(0, sorted.length - limit)) : sorted.slice(0, limit);
