/** Behaviour every TapeStore adapter must show; run by each adapter's test file. */
import { describe, expect, it } from 'vitest';
import type { TapeStore, TapeTradeBody } from './port.ts';

/** Storage that can be opened again over the same data (a restart), with a capacity. */
export interface TapeStoreFixture {
  open(capacity: number): Promise<TapeStore>;
}

const trade = (n: number): TapeTradeBody => ({
  price: `${100 + n}.00000000`,
  qty: '0.50000000',
  quoteQty: `${50 + n}.00000000`,
  time: 1_700_000_000_000 + n,
  isBuyerMaker: n % 2 === 0,
});

/** Registers the shared TapeStore tests; `fresh()` gives a fixture over empty storage. */
export function describeTapeStore(name: string, fresh: () => Promise<TapeStoreFixture>): void {
  describe(`TapeStore contract: ${name}`, () => {
    it('gives consecutive increasing ids per symbol, keeps the newest `capacity`, and reads the newest or from an id', async () => {
      const tape = await (await fresh()).open(5);
      const first = await tape.append('BTCUSDT', [trade(0), trade(1), trade(2)]);
      const more = await tape.append('BTCUSDT', [trade(3), trade(4), trade(5), trade(6)]);
      const ids = [...first, ...more].map((t) => t.id);
      // consecutive within an append, increasing across appends
      expect(first.map((t) => t.id - (ids[0] ?? 0))).toEqual([0, 1, 2]);
      expect(more.map((t) => t.id - (more[0]?.id ?? 0))).toEqual([0, 1, 2, 3]);
      expect(ids[3]).toBeGreaterThan(ids[2] ?? Infinity);
      expect(first[0]).toEqual({ ...trade(0), symbol: 'BTCUSDT', id: ids[0] });
      const eth = await tape.append('ETHUSDT', [trade(9)]);
      expect(eth[0]?.symbol).toBe('ETHUSDT');
      // the oldest two went past the capacity
      const held = await tape.latest('BTCUSDT', 100);
      expect(held.map((t) => t.id)).toEqual(ids.slice(2));
      expect(held.map((t) => t.price)).toEqual([2, 3, 4, 5, 6].map((n) => trade(n).price));
      expect(held.map((t) => t.isBuyerMaker)).toEqual([true, false, true, false, true]);
      expect((await tape.latest('BTCUSDT', 2)).map((t) => t.id)).toEqual(ids.slice(5));
      expect((await tape.from('BTCUSDT', ids[4] ?? 0, 2)).map((t) => t.id)).toEqual(ids.slice(4, 6));
      expect((await tape.from('BTCUSDT', 0, 1)).map((t) => t.id)).toEqual([ids[2]]);
      expect(await tape.from('BTCUSDT', (ids[6] ?? 0) + 1, 10)).toEqual([]);
      expect(await tape.latest('SOLUSDT', 10)).toEqual([]);
      expect(await tape.append('SOLUSDT', [])).toEqual([]);
      await tape.close();
    });

    it('never gives an id again after a restart', async () => {
      const fixture = await fresh();
      const before = await (await fixture.open(5)).append('SOLUSDT', [trade(0), trade(1)]);
      const after = await (await fixture.open(5)).append('SOLUSDT', [trade(2)]);
      expect(after[0]?.id).toBeGreaterThan(before[1]?.id ?? Infinity);
    });
  });
}
