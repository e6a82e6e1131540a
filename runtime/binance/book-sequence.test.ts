import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BookLevel, BookSnapshot } from '../../adapters/feed/port.ts';
import { BookSequence, DepthBatches, wireLevels, type DepthDiff } from './book-sequence.ts';

const book = (bids: BookLevel[], asks: BookLevel[], ts: number): BookSnapshot => ({ symbol: 'BTCUSDT', bids, asks, ts });

/** A client's local book, kept as Binance says: apply each level; quantity 0 removes it. */
function apply(local: Map<string, string>, levels: [string, string][]): void {
  for (const [p, q] of levels) {
    if (q === '0.00000000') local.delete(p);
    else local.set(p, q);
  }
}
const sorted = (m: Map<string, string>, desc: boolean) => [...m.entries()].sort((a, b) => (desc ? Number(b[0]) - Number(a[0]) : Number(a[0]) - Number(b[0])));

const levels = (desc: boolean) =>
  fc
    .uniqueArray(fc.integer({ min: 1, max: 60 }), { minLength: 1, maxLength: 8 })
    .chain((prices) => fc.tuple(fc.constant(prices), fc.array(fc.integer({ min: 1, max: 9 }), { minLength: prices.length, maxLength: prices.length })))
    .map(([prices, qtys]) => prices.sort((a, b) => (desc ? b - a : a - b)).map((p, i): BookLevel => [String(p), String(qtys[i])]));

describe('numbered books and diff batches', () => {
  it('ignores books with an empty side or an older time, and numbers the rest increasingly from their time', () => {
    const seq = new BookSequence();
    expect(seq.accept(book([['1', '1']], [], 1000))).toBeNull();
    expect(seq.accept(book([['1', '1']], [['2', '1']], 1000))?.id).toBe(1000);
    expect(seq.accept(book([['1', '1']], [['2', '2']], 1000))?.id).toBe(1001);
    expect(seq.accept(book([['1', '1']], [['2', '3']], 999))).toBeNull();
    expect(seq.accept(book([['1', '1']], [['2', '3']], 5000))?.id).toBe(5000);
  });

  it('lets a client that buffers events, fetches a snapshot and applies the events after it rebuild every later book exactly', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(levels(true), levels(false), fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 3 })), { minLength: 2, maxLength: 40 }),
        fc.integer({ min: 0, max: 39 }),
        (steps, snapshotAt) => {
          const seq = new BookSequence();
          const batches = new DepthBatches(seq);
          let ts = 1_000_000;
          const events: DepthDiff[] = [];
          let snapshot: { lastUpdateId: number; bids: [string, string][]; asks: [string, string][] } | undefined;
          steps.forEach(([bids, asks, gap, ticksAfter], i) => {
            ts += gap;
            seq.accept(book(bids, asks, ts));
            if (i === Math.min(snapshotAt, steps.length - 1)) {
              const held = seq.of('BTCUSDT');
              if (held) snapshot = { lastUpdateId: held.id, bids: wireLevels(held.book.bids), asks: wireLevels(held.book.asks) };
            }
            for (let k = 0; k < ticksAfter; k++) {
              const e = batches.tick('BTCUSDT');
              if (e) events.push(e);
            }
          });
          const last = batches.tick('BTCUSDT');
          if (last) events.push(last);
          if (!snapshot) return;
          // consecutive events cover contiguous ranges
          for (let i = 1; i < events.length; i++) expect(events[i]!.U).toBe(events[i - 1]!.u + 1);
          const after = events.filter((e) => e.u > snapshot!.lastUpdateId);
          const first = after[0];
          if (first) expect(first.U <= snapshot.lastUpdateId + 1 && snapshot.lastUpdateId + 1 <= first.u).toBe(true);
          const bids = new Map(snapshot.bids);
          const asks = new Map(snapshot.asks);
          for (const e of after) {
            apply(bids, e.bids);
            apply(asks, e.asks);
          }
          const final = seq.of('BTCUSDT')!.book;
          expect(sorted(bids, true)).toEqual(wireLevels(final.bids));
          expect(sorted(asks, false)).toEqual(wireLevels(final.asks));
        },
      ),
      { numRuns: 300 },
    );
  });
});
