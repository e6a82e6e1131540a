import { describe, expect, it } from 'vitest';
import { formatFixed } from './fixed-point.ts';

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
