import { describe, expect, it } from 'vitest';
import { bookCache } from './book-cache.ts';

const at = (ts: number, bid = '10') => ({ symbol: 'SOLUSDT' as const, bids: [[bid, '1']] as [string, string][], asks: [['11', '1']] as [string, string][], ts });

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
  });
});
