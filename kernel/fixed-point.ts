/**
 * Integers scaled by a power of ten written as decimal strings, exactly (no float): token base
 * units with 6 decimals, prices x 1e8, SPL amounts, ticks of an order book.
 *
 * @example
 *   formatFixed(123_456_789n, 6);                  // "123.456789"
 *   formatFixed(-5n, 8);                           // "-0.00000005"
 *   formatFixed(1_500_000n, 6, { trim: true });    // "1.5"
 *   parseFixed('2.5', 6);                          // 2_500_000n
 */

/** `units` / 10^`decimals` as a decimal string: every fraction digit, or with `trim` none of the trailing zeros (and no point when none is left). */
export function formatFixed(units: bigint, decimals: number, options: { trim?: boolean } = {}): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  let fraction = digits.slice(digits.length - decimals);
  if (options.trim) fraction = fraction.replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** A plain non-negative decimal ("12", "0.5", "12.345678"): digits, and a fraction of at most `decimals` digits. */
const plainDecimal = (decimals: number) => new RegExp(`^(\\d{1,30})(?:\\.(\\d{1,${decimals}}))?$`);
const PLAIN_BY_DECIMALS = new Map<number, RegExp>();

/** `text` x 10^`decimals` as an integer, exactly; undefined unless `text` is a plain non-negative decimal with at most `decimals` fraction digits. */
export function parseFixed(text: string, decimals: number): bigint | undefined {
  let pattern = PLAIN_BY_DECIMALS.get(decimals);
  if (!pattern) PLAIN_BY_DECIMALS.set(decimals, (pattern = plainDecimal(decimals)));
  const m = pattern.exec(text);
  if (!m) return undefined;
  return BigInt(m[1] as string) * 10n ** BigInt(decimals) + BigInt((m[2] ?? '').padEnd(decimals, '0'));
}
