/**
 * The behaviour every `BetHistoryStore` must have, as one vitest suite that each adapter's test
 * file runs against its own store.
 */
import { describe, expect, it } from 'vitest';
import type { BetHistoryStore, BetRecord } from './port.ts';

const ALICE = 'GdnSyH3YtwcxFvQrVVJMm1JhTS4QVX7MFsX56uJLUfiZ';
const BOB = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const T = 1_763_700_000_000;

/** A record with sensible defaults; `over` replaces fields. */
export function record(id: string, over: Partial<BetRecord> = {}): BetRecord {
  return {
    id,
    bettor: ALICE,
    side: 'UP',
    amountUnits: '100000000',
    entryPrice: 15_000_000_000,
    exitPrice: 0,
    status: 0,
    expireTime: Math.floor(T / 1000) + 15,
    openedAt: T,
    closedAt: null,
    netUnits: null,
    entry: { price: 15_000_000_000, ts: T - 100, source: 'test' },
    exit: null,
    ticks: [],
    placeTx: 'sig-place',
    closeTx: null,
    prevId: null,
    nextId: null,
    ...over,
  };
}

/** Runs the BetHistoryStore contract against stores made by `make` (a fresh, empty store per call). */
export function betHistoryContract(name: string, make: () => BetHistoryStore | Promise<BetHistoryStore>): void {
  describe(`${name} bet history`, () => {
    it('answers null and empty lists when nothing is stored', async () => {
      const h = await make();
      expect(await h.get('1')).toBeNull();
      expect(await h.pageOf(ALICE, 10)).toEqual([]);
      expect(await h.closedSince(0)).toEqual([]);
      expect(await h.pruneOpenedBefore(T)).toBe(0);
    });

    it('round-trips a record and replaces it whole on the next put', async () => {
      const h = await make();
      await h.put(record('7'));
      expect(await h.get('7')).toEqual(record('7'));
      const closed = record('7', {
        status: 1,
        exitPrice: 15_000_000_100,
        closedAt: T + 16_000,
        netUnits: '30000000',
        exit: { price: 15_000_000_100, ts: T + 14_900, source: 'test', rule: 'last_tick_at_or_before_expiry', reason: 'r' },
        ticks: [{ price: 15_000_000_100, ts: T + 14_900 }],
        closeTx: 'sig-close',
      });
      await h.put(closed);
      expect(await h.get('7')).toEqual(closed);
    });

    it("pages a bettor's records newest (highest id) first, below a cursor", async () => {
      const h = await make();
      for (const id of ['1', '2', '10', '11', '3']) await h.put(record(id));
      await h.put(record('5', { bettor: BOB }));
      expect((await h.pageOf(ALICE, 2)).map((r) => r.id)).toEqual(['11', '10']);
      expect((await h.pageOf(ALICE, 2, '10')).map((r) => r.id)).toEqual(['3', '2']);
      expect((await h.pageOf(ALICE, 10, '2')).map((r) => r.id)).toEqual(['1']);
      expect(await h.pageOf(ALICE, 10, '1')).toEqual([]);
      expect((await h.pageOf(BOB, 10)).map((r) => r.id)).toEqual(['5']);
    });

    it('lists closed records since a time', async () => {
      const h = await make();
      await h.put(record('1', { status: 2, closedAt: T + 1_000, netUnits: '-100000000' }));
      await h.put(record('2', { status: 1, closedAt: T + 5_000, netUnits: '30000000' }));
      await h.put(record('3'));
      expect((await h.closedSince(T + 1_000)).map((r) => r.id).sort()).toEqual(['1', '2']);
      expect((await h.closedSince(T + 1_001)).map((r) => r.id)).toEqual(['2']);
    });

    it('prunes records opened before a cutoff, from every index', async () => {
      const h = await make();
      await h.put(record('1', { openedAt: T - 10_000, status: 2, closedAt: T - 5_000, netUnits: '-1' }));
      await h.put(record('2', { openedAt: T }));
      expect(await h.pruneOpenedBefore(T)).toBe(1);
      expect(await h.get('1')).toBeNull();
      expect((await h.pageOf(ALICE, 10)).map((r) => r.id)).toEqual(['2']);
      expect(await h.closedSince(0)).toEqual([]);
      expect(await h.pruneOpenedBefore(T)).toBe(0);
    });
  });
}
