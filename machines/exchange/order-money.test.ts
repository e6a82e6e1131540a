import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dec, ZERO } from './money.ts';
import { buyReserve, makerFill } from './order-money.ts';

describe('order money', () => {
  it('locks gross + maker fee, rounded like a trade', () => {
    expect(buyReserve(dec('100.5'), dec('0.3'), dec('0.001')).toFixed()).toBe('30.18015');
  });

  it('prices maker fills cumulatively: any split of an order costs exactly its lock, and each fill at most what is left of it', () => {
    const split = fc.record({
      price: fc.integer({ min: 1, max: 10_000_000 }).map((n) => dec(String(n)).div(1000)),
      parts: fc.array(
        fc.integer({ min: 1, max: 1_000_000 }).map((n) => dec(String(n)).div(10_000_000)),
        { minLength: 1, maxLength: 30 },
      ),
      rate: fc.constantFrom('0', '0.001', '0.00075', '0.0025'),
    });
    fc.assert(
      fc.property(split, ({ price, parts, rate }) => {
        const qty = parts.reduce((a, p) => a.plus(p), ZERO);
        const lock = buyReserve(price, qty, dec(rate));
        let filled = ZERO;
        let left = lock;
        for (const q of parts) {
          const { gross, fee } = makerFill(price, filled, q, dec(rate));
          expect(gross.gte(0) && fee.gte(0)).toBe(true);
          expect(gross.plus(fee).lte(left)).toBe(true);
          left = left.minus(gross).minus(fee);
          filled = filled.plus(q);
        }
        expect(left.isZero()).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
