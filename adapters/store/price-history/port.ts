/**
 * Port: the gateway's local price history (settlement prices each expired bet from it:
 * docs/decisions.md#entry-and-exit-prices). Ticks are ordered by their own `ts` (exchange time),
 * not by arrival; one tick per ts (a later tick with the same ts replaces the earlier one).
 * Adapters: `memory.ts` (embedded default), `redis.ts`.
 */
import type { Tick } from '../../feed/port.ts';

export type { Tick };

/** How much history is kept: ticks older than `retentionMs` behind the newest tick, and at most `maxTicks`. */
export interface PriceHistoryRetention {
  retentionMs: number;
  maxTicks: number;
}

/** Defaults: 1 h (bets wait at most 300 s past expiry) and 20000 ticks (about 2.8 h at 2 ticks/s). */
export const DEFAULT_RETENTION: PriceHistoryRetention = { retentionMs: 3_600_000, maxTicks: 20_000 };

export interface PriceHistory {
  /** Stores a tick (price a decimal string, ts unix ms), then trims to the retention bound. */
  append(tick: Tick): Promise<void>;
  /** The tick with the highest ts, if any. */
  latest(): Promise<Tick | undefined>;
  /** The last tick with ts <= `tsMs` (the exit-price lookup). */
  atOrBefore(tsMs: number): Promise<Tick | undefined>;
  /** Whether a tick with ts >= `tsMs` has arrived. */
  hasTickAtOrAfter(tsMs: number): Promise<boolean>;
  /** Ticks with `fromMs <= ts <= toMs`, oldest first (settlement evidence: the ticks around an expiry). */
  between(fromMs: number, toMs: number): Promise<Tick[]>;
  /** Number of ticks held (operators, tests). */
  size(): Promise<number>;
}
