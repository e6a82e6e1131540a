import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal, dec, fmt, fmtPrice, toMoney } from './money.ts';

/** The formatting rule spelled out the slow way: round half-even to `dp`, drop the sign of zero, fixed notation. */
const reference = (d: Decimal, dp: number): string => {
  const rounded = d.toDecimalPlaces(dp, Decimal.ROUND_HALF_EVEN);
  return (rounded.isZero() ? rounded.abs() : rounded).toFixed(dp);
};

describe('fmt', () => {
  it('rounds half-even to 10 digits, never shows "-0" or an exponent', () => {
    expect(fmt(dec('1.00000000005'))).toBe('1.0000000000');
    expect(fmt(dec('1.00000000015'))).toBe('1.0000000002');
    expect(fmt(dec('-0.00000000004'))).toBe('0.0000000000');
    expect(fmt(dec('-0'))).toBe('0.0000000000');
    expect(fmt(dec('-0.4'), 0)).toBe('0');
    expect(fmt(dec('1e-20'))).toBe('0.0000000000');
    expect(fmt(dec('123456789012345678901234567890'))).toBe('123456789012345678901234567890.0000000000');
    expect(fmtPrice(dec('150.123456785'))).toBe('150.12345678');
  });

  it('agrees with the rule spelled out for any decimal and any digits', () => {
    const decimal = fc
      .tuple(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.integer({ min: 0, max: 25 }))
      .map(([units, scale]) => dec(units.toString()).div(dec('10').pow(scale)));
    fc.assert(
      fc.property(decimal, fc.integer({ min: 0, max: 12 }), (d, dp) => fmt(d, dp) === reference(d, dp)),
      { numRuns: 2000 },
    );
  });

  it('toMoney keeps 10 digits', () => {
    expect(toMoney(dec('2.123456789049')).toFixed()).toBe('2.123456789');
  });
});
