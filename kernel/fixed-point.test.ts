import { describe, expect, it } from 'vitest';
import { formatFixed, parseFixed } from './fixed-point.ts';

describe('formatFixed', () => {
  it('writes every fraction digit, exactly, signed', () => {
    expect(formatFixed(123_456_789n, 6)).toBe('123.456789');
    expect(formatFixed(0n, 6)).toBe('0.000000');
    expect(formatFixed(5n, 8)).toBe('0.00000005');
    expect(formatFixed(-5n, 8)).toBe('-0.00000005');
    expect(formatFixed(15_012_345_678n, 8)).toBe('150.12345678');
    expect(formatFixed(12_345_678_901_234_567_890n, 8)).toBe('123456789012.34567890');
    expect(formatFixed(42n, 0)).toBe('42');
  });

  it('with trim drops the trailing zeros, and the point when nothing is left', () => {
    expect(formatFixed(1_500_000n, 6, { trim: true })).toBe('1.5');
    expect(formatFixed(2_000_000n, 6, { trim: true })).toBe('2');
    expect(formatFixed(0n, 9, { trim: true })).toBe('0');
    expect(formatFixed(1n, 9, { trim: true })).toBe('0.000000001');
  });
});

describe('parseFixed', () => {
  it('reads plain decimals exactly, the inverse of formatFixed', () => {
    expect(parseFixed('2.5', 6)).toBe(2_500_000n);
    expect(parseFixed('12', 6)).toBe(12_000_000n);
    expect(parseFixed('0.000001', 6)).toBe(1n);
    expect(parseFixed('150.12345678', 8)).toBe(15_012_345_678n);
    for (const units of [0n, 1n, 999_999n, 123_456_789n]) expect(parseFixed(formatFixed(units, 6), 6)).toBe(units);
  });

  it('refuses anything else: more fraction digits than the scale, signs, exponents, spaces, empty parts', () => {
    for (const text of ['0.0000001', '-1', '+1', '1e3', ' 1', '1 ', '', '.5', '5.', '1.2.3', 'abc', '0x10', '1'.repeat(31)])
      expect(parseFixed(text, 6), text).toBeUndefined();
  });
});
