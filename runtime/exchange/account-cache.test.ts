import { describe, expect, it } from 'vitest';
import type { AccountBundle } from '../../adapters/store/exchange/port.ts';
import { AccountCache, accountCacheOf } from './account-cache.ts';

const bundle = (version: number) => ({ version }) as unknown as AccountBundle;

describe('AccountCache', () => {
  it('keeps the most recently used accounts up to its bound, forgetting the least recently set first', () => {
    const cache = new AccountCache(2);
    cache.set('a', bundle(1));
    cache.set('b', bundle(1));
    cache.set('a', bundle(2)); // a is now the newest
    cache.set('c', bundle(1));
    expect(cache.size).toBe(2);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.version).toBe(2);
    cache.drop('a');
    expect(cache.get('a')).toBeUndefined();
  });

  it('a read makes an account recently used: the one read is kept, the one only set is forgotten', () => {
    const cache = new AccountCache(2);
    cache.set('a', bundle(1));
    cache.set('b', bundle(1));
    expect(cache.get('a')?.version).toBe(1); // a is now the newest
    cache.set('c', bundle(1));
    expect(cache.get('a')?.version).toBe(1);
    expect(cache.get('b')).toBeUndefined();
  });

  it('is one per store', () => {
    const s1 = {};
    const s2 = {};
    expect(accountCacheOf(s1)).toBe(accountCacheOf(s1));
    expect(accountCacheOf(s1)).not.toBe(accountCacheOf(s2));
  });
});
