import { describe, expect, it } from 'vitest';
import { bookCache } from './book-cache.ts';

const at = (ts: number, bid = '10') => ({
  symbol: 'SOLUSDT' as const,
  bids: [[bid, '1']] as [string, string][],
  asks: [['11', '1']] as [string, string][],
  ts,
});

describe('bookCache', () => {
  it('uses a book up to the cut-off and never after', () => {
    let now = 100_000;
    const cache = bookCache(30_000, () => now);
    cache.put(at(70_000));
    expect(cache.fresh('SOLUSDT')?.ts).toBe(70_000);
    now = 100_001;
    expect(cache.fresh('SOLUSDT')).toBeNull();
    expect(cache.freshAll()).toEqual([]);
    expect(cache.bids().SOLUSDT?.toFixed()).toBe('10');
  });

  it('keeps the newest book and ignores one-sided books', () => {
    const cache = bookCache(30_000, () => 10);
    cache.put(at(5, '10'));
    cache.put(at(4, '9'));
    cache.put({ ...at(6, '8'), asks: [] });
    expect(cache.fresh('SOLUSDT')?.bids[0]?.[0]).toBe('10');
    // the same time again is the same snapshot: what orders consumed from it stays consumed
    expect(cache.put(at(5, '7'))).toBe(false);
    expect(cache.put(at(7, '7'))).toBe(true);
    expect(cache.fresh('SOLUSDT')?.bids[0]?.[0]).toBe('7');
  });
});

describe('renderFresh', () => {
  it('renders again only when a book arrives or a fresh book turns stale', () => {
    let now = 100_000;
    const cache = bookCache(30_000, () => now);
    let renders = 0;
    const render = (books: { ts: number }[]) => {
      renders++;
      return books.map((b) => b.ts);
    };
    cache.put(at(90_000));
    expect(cache.renderFresh(render)).toEqual([90_000]);
    expect(cache.renderFresh(render)).toEqual([90_000]);
    expect(renders).toBe(1);
    cache.put({ ...at(95_000), symbol: 'BTCUSDT' });
    expect(cache.renderFresh(render)).toEqual([95_000, 90_000]);
    expect(renders).toBe(2);
    now = 120_001; // the SOL book is now older than 30 s
    expect(cache.renderFresh(render)).toEqual([95_000]);
    now = 125_001;
    expect(cache.renderFresh(render)).toEqual([]);
    expect(renders).toBe(4);
    expect(cache.renderFresh(render)).toEqual([]);
    expect(renders).toBe(4);
  });
});
