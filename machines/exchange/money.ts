/**
 * Decimal arithmetic for the exchange ledger: every amount is a decimal.js value, stored
 * and sent as a plain decimal string (docs/decisions.md#money: 10 fraction digits, never
 * scientific notation). No JS number ever holds money.
 */
import { Decimal } from 'decimal.js';

/** The decimal type of the ledger. */
export { Decimal };

/** Fraction digits of every stored/sent money amount and quantity (docs/decisions.md#money). */
export const MONEY_DP = 10;
/** Fraction digits of `bid`/`ask` in the price object (docs/exchange-api.md#prices). */
export const PRICE_DP = 8;

// Wide enough that sums and products of 10-dp amounts are exact before rounding.
const D = Decimal.clone({ precision: 80, rounding: Decimal.ROUND_HALF_EVEN, toExpNeg: -100, toExpPos: 100 });

/** Parses a decimal string (already validated at the edge). */
export const dec = (value: string | Decimal): Decimal => new D(value);

/** Zero. */
export const ZERO: Decimal = new D(0);

/** Rounds to the ledger's 10 fraction digits, half-even (banker's) so no side is favoured. */
export const toMoney = (d: Decimal): Decimal => {
  const r = d.toDecimalPlaces(MONEY_DP, Decimal.ROUND_HALF_EVEN);
  // rounding keeps the class of `d`: only a decimal made outside this module is wrapped again
  return r instanceof D ? r : new D(r);
};

/** Formats with exactly `dp` fraction digits, never exponent notation, never "-0". */
export function fmt(d: Decimal, dp: number = MONEY_DP): string {
  const text = d.toFixed(dp, Decimal.ROUND_HALF_EVEN);
  // a small negative amount rounds to "-0.000…": zero has no sign
  return text.charCodeAt(0) === 45 && NEGATIVE_ZERO.test(text) ? text.slice(1) : text;
}
const NEGATIVE_ZERO = /^-0(\.0*)?$/;

/** Formats a price-object price (8 fraction digits, docs/exchange-api.md#prices). */
export const fmtPrice = (d: Decimal): string => fmt(d, PRICE_DP);

/** Sums decimals exactly. */
export const sum = (values: Iterable<Decimal>): Decimal => {
  let acc = ZERO;
  for (const v of values) acc = acc.plus(v);
  return acc;
};
