import { describe, expect, it } from 'vitest';
import { balanceView, formatHuman } from './units.ts';

describe('token units', () => {
  it.each([
    [0n, '0.000000'],
    [1n, '0.000001'],
    [100000000n, '100.000000'],
    [10000000000n, '10000.000000'],
    [123456789n, '123.456789'],
    [-5n, '-0.000005'],
    [18446744073709551615n, '18446744073709.551615'],
  ])('formats %s as %s', (units, human) => {
    expect(formatHuman(units)).toBe(human);
  });

  it('builds the balance object with exact fields and types', () => {
    expect(balanceView(5_000_000_000n, 10_000_000_000n)).toEqual({
      sol: 5,
      solLamports: 5000000000,
      tokenUnits: '10000000000',
      tokenHuman: '10000.000000',
    });
    expect(balanceView(10_000_000n, 0n).sol).toBe(0.01);
  });
});
