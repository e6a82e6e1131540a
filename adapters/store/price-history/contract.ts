/** Behaviour every PriceHistory adapter must show; run by each adapter's test file. */
import { describe, expect, it } from 'vitest';
import type { PriceHistory, PriceHistoryRetention } from './port.ts';

/** Registers the shared PriceHistory tests; `make` returns a fresh, empty history each call. */
export function describePriceHistory(name: string, make: (retention?: PriceHistoryRetention) => Promise<PriceHistory>): void {
  describe(`PriceHistory contract: ${name}`, () => {
    const T = 1_763_700_000_000;

    it('is empty at first', async () => {
      const h = await make();
      expect(await h.latest()).toBeUndefined();
      expect(await h.atOrBefore(T)).toBeUndefined();
      expect(await h.hasTickAtOrAfter(0)).toBe(false);
      expect(await h.size()).toBe(0);
    });

    it('answers latest, last-at-or-before and has-at-or-after with exact boundaries', async () => {
      const h = await make();
      await h.append({ price: '150.00000001', ts: T - 500 });
      await h.append({ price: '150.00000002', ts: T });
      await h.append({ price: '150.00000003', ts: T + 500 });
      expect(await h.latest()).toEqual({ price: '150.00000003', ts: T + 500 });
      expect(await h.atOrBefore(T - 501)).toBeUndefined();
      expect(await h.atOrBefore(T - 500)).toEqual({ price: '150.00000001', ts: T - 500 });
      expect(await h.atOrBefore(T - 1)).toEqual({ price: '150.00000001', ts: T - 500 });
      expect(await h.atOrBefore(T)).toEqual({ price: '150.00000002', ts: T });
      expect(await h.atOrBefore(T + 10_000)).toEqual({ price: '150.00000003', ts: T + 500 });
      expect(await h.hasTickAtOrAfter(T + 500)).toBe(true);
      expect(await h.hasTickAtOrAfter(T + 501)).toBe(false);
      expect(await h.between(T - 500, T)).toEqual([
        { price: '150.00000001', ts: T - 500 },
        { price: '150.00000002', ts: T },
      ]);
      expect(await h.between(T + 1, T + 499)).toEqual([]);
      expect(await h.between(T - 10_000, T + 10_000)).toHaveLength(3);
    });

    it('keeps a signed tick in signed form (docs/decisions.md#signed-prices)', async () => {
      const h = await make();
      const signed = { seq: 41, signature: `${'A'.repeat(86)}==`, signer: '11111111111111111111111111111111' };
      await h.append({ price: '150.00000001', ts: T, signed });
      await h.append({ price: '150.00000002', ts: T + 1 });
      expect(await h.atOrBefore(T)).toEqual({ price: '150.00000001', ts: T, signed });
      expect(await h.between(T, T + 1)).toEqual([
        { price: '150.00000001', ts: T, signed },
        { price: '150.00000002', ts: T + 1 },
      ]);
    });

    it('orders by tick ts, not arrival, and keeps one tick per ts (last one wins)', async () => {
      const h = await make();
      await h.append({ price: '2', ts: T + 2000 });
      await h.append({ price: '1', ts: T + 1000 });
      await h.append({ price: '1.5', ts: T + 1000 });
      expect(await h.latest()).toEqual({ price: '2', ts: T + 2000 });
      expect(await h.atOrBefore(T + 1999)).toEqual({ price: '1.5', ts: T + 1000 });
      expect(await h.size()).toBe(2);
    });

    it('drops ticks older than the retention window behind the newest tick', async () => {
      const h = await make({ retentionMs: 10_000, maxTicks: 1000 });
      await h.append({ price: '1', ts: T - 10_001 });
      await h.append({ price: '2', ts: T - 10_000 });
      await h.append({ price: '3', ts: T });
      expect(await h.size()).toBe(2);
      expect(await h.atOrBefore(T - 10_001)).toBeUndefined();
      expect(await h.atOrBefore(T - 10_000)).toEqual({ price: '2', ts: T - 10_000 });
    });

    it('keeps at most maxTicks, dropping the oldest', async () => {
      const h = await make({ retentionMs: 3_600_000, maxTicks: 5 });
      for (let i = 0; i < 12; i++) await h.append({ price: `${100 + i}`, ts: T + i * 500 });
      expect(await h.size()).toBe(5);
      expect(await h.atOrBefore(T + 6 * 500)).toBeUndefined();
      expect(await h.atOrBefore(T + 7 * 500)).toEqual({ price: '107', ts: T + 3500 });
      expect(await h.latest()).toEqual({ price: '111', ts: T + 5500 });
    });
  });
}
