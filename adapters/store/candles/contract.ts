/** Behaviour every CandleStore adapter must show; run by each adapter's test file. */
import { describe, expect, it } from 'vitest';
import type { Candle, CandleStore } from './port.ts';

/** Storage that can be opened again over the same data, with a retention bound. */
export interface CandleStoreFixture {
  open(retention: number): Promise<CandleStore>;
}

const candle = (minute: number, close = String(100 + minute)): Candle => ({
  openTime: Date.parse('2026-01-01T00:00:00Z') + minute * 60_000,
  open: '100.00000000',
  high: '110.00000000',
  low: '90.00000000',
  close,
  books: minute + 1,
  // a minute with the venue's trades keeps them
  ...(minute === 2
    ? {
        trades: {
          volume: '1.50000000',
          quoteVolume: '150.00000000',
          count: 2,
          takerBuyVolume: '1.00000000',
          takerBuyQuoteVolume: '100.00000000',
          firstId: 7,
          lastId: 8,
        },
      }
    : {}),
});

/** Registers the shared CandleStore tests; `fresh()` gives a fixture over empty storage. */
export function describeCandleStore(name: string, persistent: boolean, fresh: () => Promise<CandleStoreFixture>): void {
  describe(`CandleStore contract: ${name}`, () => {
    it('keeps candles per symbol by minute, replaces the same minute, and answers ranges oldest first with the first or last `limit`', async () => {
      const store = await (await fresh()).open(100);
      for (const m of [3, 0, 1, 2]) await store.put('BTCUSDT', candle(m));
      await store.put('BTCUSDT', candle(1, '555.00000000'));
      await store.put('ETHUSDT', candle(1));
      const all = await store.range('BTCUSDT', 0, Number.MAX_SAFE_INTEGER, 100);
      expect(all.map((c) => c.openTime)).toEqual([0, 1, 2, 3].map((m) => candle(m).openTime));
      expect(all[1]).toEqual(candle(1, '555.00000000'));
      expect(await store.range('BTCUSDT', candle(1).openTime, candle(2).openTime, 100)).toEqual([candle(1, '555.00000000'), candle(2)]);
      expect((await store.range('BTCUSDT', 0, Number.MAX_SAFE_INTEGER, 2)).map((c) => c.close)).toEqual([candle(0).close, '555.00000000']);
      expect((await store.range('BTCUSDT', 0, Number.MAX_SAFE_INTEGER, 2, true)).map((c) => c.openTime)).toEqual([candle(2).openTime, candle(3).openTime]);
      expect(await store.range('ETHUSDT', 0, Number.MAX_SAFE_INTEGER, 10)).toEqual([candle(1)]);
      expect(await store.range('SOLUSDT', 0, Number.MAX_SAFE_INTEGER, 10)).toEqual([]);
    });

    it('keeps only the newest candles past its bound', async () => {
      const store = await (await fresh()).open(5);
      for (let m = 0; m < 12; m++) await store.put('SOLUSDT', candle(m));
      expect((await store.range('SOLUSDT', 0, Number.MAX_SAFE_INTEGER, 100)).map((c) => c.books)).toEqual([8, 9, 10, 11, 12]);
    });

    if (persistent)
      it('keeps candles across reopen', async () => {
        const fixture = await fresh();
        const store = await fixture.open(50);
        for (let m = 0; m < 300; m++) await store.put('BTCUSDT', candle(m % 20, String(m)));
        await store.close();
        const again = await fixture.open(50);
        const got = await again.range('BTCUSDT', 0, Number.MAX_SAFE_INTEGER, 100);
        expect(got.length).toBe(20);
        expect(got[19]).toEqual(candle(19, '299'));
      });
  });
}
