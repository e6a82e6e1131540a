/**
 * Market data as the services see it, whatever the source (NATS, synthetic, Binance).
 * Wire formats of the NATS subjects are in `messages.ts` (docs/operations.md#market-data-on-nats).
 */

import type { BookSymbol } from '../../kernel/domain.ts';

/**
 * A price signer's word on one tick (docs/decisions.md#signed-prices): its Ed25519 signature over
 * the tick message of `tick-message.ts` (`seq`, `ts`, price x 1e8).
 */
export interface TickSignature {
  /** the signer's sequence number of this tick: +1 per tick, across restarts */
  seq: number;
  /** Ed25519 signature, base64 (64 bytes) */
  signature: string;
  /** the signer's public key, base58 */
  signer: string;
}

/** One SOL/USDT tick (gateway). `price` is a decimal string; `ts` unix ms of the exchange event; `signed` when a price signer signed it. */
export interface PriceTick {
  symbol: 'solusdt';
  price: string;
  ts: number;
  signed?: TickSignature;
}

/** A stored tick: decimal price string and unix ms timestamp (a PriceTick without its symbol), in signed form when it was signed. */
export interface Tick {
  price: string;
  ts: number;
  signed?: TickSignature;
}

/** [price, qty] as decimal strings, best level first. */
export type BookLevel = readonly [price: string, qty: string];

export interface BookSnapshot {
  symbol: BookSymbol;
  bids: BookLevel[];
  asks: BookLevel[];
  /** unix ms; a book's age is now minus ts */
  ts: number;
}

export type Unsubscribe = () => void;

/** A source of ticks. `start` resolves once the source is connected. */
export interface PriceFeed {
  start(): Promise<void>;
  onTick(listener: (tick: PriceTick) => void): Unsubscribe;
  stop(): Promise<void>;
}

/** A source of order-book snapshots for BTCUSDT/ETHUSDT/SOLUSDT. */
export interface BookFeed {
  start(): Promise<void>;
  onBook(listener: (book: BookSnapshot) => void): Unsubscribe;
  stop(): Promise<void>;
}
