/**
 * Pure price rules of the gateway (docs/decisions.md#entry-and-exit-prices; units: docs/gateway-api.md#units).
 * Prices travel as decimal strings with 8 fraction digits and are attested on chain as
 * integers x 1e8 (bigint here, never a float). Decisions come back as tagged values.
 *
 * @example
 *   priceToE8('150.12345678')            // 15012345678n
 *   formatE8(15012345678n)               // '150.12345678'
 *   decideExitPrice({ expireTime: 100, nowMs: 102_000, atOrBefore, latest })
 */
import type { Tick } from '../../../adapters/feed/port.ts';
import { formatFixed } from '../../../kernel/fixed-point.ts';

/** 1e8: the scale of on-chain prices (`entryPrice`, `exitPrice`). */
export const PRICE_SCALE = 100_000_000n;
/** Fraction digits of a wire price. */
export const PRICE_DECIMALS = 8;

/** Timing rules of docs/decisions.md#entry-and-exit-prices, in ms. */
export const PRICE_RULES = {
  /** A tick more than this older than the moment it prices is never used. */
  maxTickAgeMs: 30_000,
  /** Exit price is taken at the latest this long after expiry, even without a later tick. */
  exitGraceMs: 2_000,
  /** After this long past expiry without a usable price, the bet is refunded at its entry price. */
  refundAfterMs: 300_000,
} as const;

/** Thrown for a price that is not a positive decimal. */
export class InvalidPrice extends Error {
  constructor(readonly input: unknown) {
    super(`invalid price ${JSON.stringify(input)}: expected a positive decimal`);
    this.name = 'InvalidPrice';
  }
}

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/**
 * Price x 1e8 as an exact bigint. Accepts a plain decimal string (`"150.1"`, `"150.12345678"`)
 * or a finite JS number (NATS may carry numbers; converted through its shortest decimal form).
 * More than 8 fraction digits are rounded half-up at the 8th digit (exchanges may quote finer
 * than the chain stores; dropping the tick would lose a price). Zero, negatives, exponents in
 * strings, hex, NaN and Infinity throw InvalidPrice.
 */
export function priceToE8(input: string | number): bigint {
  const text = typeof input === 'number' ? numberToPlain(input) : input;
  const m = text === undefined ? null : DECIMAL.exec(text);
  if (!m) throw new InvalidPrice(input);
  const whole = m[1] ?? '0';
  const frac = m[2] ?? '';
  let e8 = BigInt(whole) * PRICE_SCALE + BigInt(frac.slice(0, PRICE_DECIMALS).padEnd(PRICE_DECIMALS, '0'));
  const next = frac.charCodeAt(PRICE_DECIMALS) - 48; // NaN when there is no 9th digit
  if (next >= 5) e8 += 1n;
  if (e8 <= 0n) throw new InvalidPrice(input);
  return e8;
}

/** A finite positive number in plain decimal notation (no exponent), or undefined. */
function numberToPlain(n: number): string | undefined {
  if (!Number.isFinite(n) || n <= 0) return undefined;
  const s = String(n);
  if (!/e/i.test(s)) return s;
  // Exponent form: only tiny/huge numbers; toFixed(20) is exact enough for < 1e21 and keeps no float error beyond digit 8 after rounding.
  return n < 1e21 ? n.toFixed(20).replace(/0+$/, '').replace(/\.$/, '') : undefined;
}

/** Formats price x 1e8 as the wire string with exactly 8 fraction digits (`"150.12345678"`). */
export function formatE8(e8: bigint): string {
  return formatFixed(e8, PRICE_DECIMALS);
}

/** Normalises any accepted price input to the 8-digit wire string (docs/gateway-api.md#units). */
export const formatPrice = (input: string | number): string => formatE8(priceToE8(input));

/** Entry decision: a price, or no usable price (none at all, or the latest is stale). */
export type EntryDecision = { kind: 'price'; value: bigint; tick: Tick } | { kind: 'no_price'; reason: 'none' | 'stale' };

/**
 * Entry price = the latest tick; refused when there is none or it is more than 30 s older than
 * `nowMs` (exactly 30 s old is still used). Profile A answers 503, Profile B `NO_PRICE`.
 */
export function decideEntryPrice(latest: Tick | undefined, nowMs: number): EntryDecision {
  if (!latest) return { kind: 'no_price', reason: 'none' };
  if (nowMs - latest.ts > PRICE_RULES.maxTickAgeMs) return { kind: 'no_price', reason: 'stale' };
  return { kind: 'price', value: priceToE8(latest.price), tick: latest };
}

/** What the history says around a bet's expiry. */
export interface ExitInputs {
  /** bet expiry, unix seconds (on-chain `expireTime`) */
  expireTime: number;
  /** the moment of the decision, unix ms */
  nowMs: number;
  /** the last tick with ts <= expireTime * 1000 */
  atOrBefore: Tick | undefined;
  /** the newest tick known (any ts); tells whether a tick at or after expiry has arrived */
  latest: Tick | undefined;
  /**
   * the contract requires signed prices: a close carries the tick after T too, so the price is
   * taken only once a tick with ts > T is held, never at the 2 s grace (docs/decisions.md#signed-prices)
   */
  signed?: boolean;
}

/** Exit decision for an expired bet. */
export type ExitDecision =
  { kind: 'price'; value: bigint; tick: Tick } | { kind: 'wait'; reason: 'not_expired' | 'awaiting_tick' | 'stale' | 'none' } | { kind: 'refund_at_entry' };

/**
 * Exit price of a bet (docs/decisions.md#entry-and-exit-prices): the last tick with ts <= T (T = expireTime*1000), taken once a
 * tick with ts >= T has arrived or once now >= T + 2 s. That tick is used only when T - ts <= 30 s.
 * Without a usable price the bet waits, until now >= T + 300 s: then `refund_at_entry`.
 */
export function decideExitPrice({ expireTime, nowMs, atOrBefore, latest, signed = false }: ExitInputs): ExitDecision {
  const t = expireTime * 1000;
  if (nowMs < t) return { kind: 'wait', reason: 'not_expired' };
  const ready = signed ? latest !== undefined && latest.ts > t : (latest !== undefined && latest.ts >= t) || nowMs >= t + PRICE_RULES.exitGraceMs;
  const usable = atOrBefore !== undefined && atOrBefore.ts <= t && t - atOrBefore.ts <= PRICE_RULES.maxTickAgeMs;
  if (ready && usable) return { kind: 'price', value: priceToE8(atOrBefore.price), tick: atOrBefore };
  if (nowMs >= t + PRICE_RULES.refundAfterMs) return { kind: 'refund_at_entry' };
  if (!ready) return { kind: 'wait', reason: 'awaiting_tick' };
  return { kind: 'wait', reason: atOrBefore === undefined ? 'none' : 'stale' };
}
