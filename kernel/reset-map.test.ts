import { describe, expect, it } from 'vitest';
import { ResetMap } from './reset-map.ts';

describe('ResetMap', () => {
  it('holds up to its limit, then forgets everything when a new key comes', () => {
    const m = new ResetMap<string, number>(2);
    m.set('a', 1).set('b', 2);
    m.set('a', 3); // a key it holds: nothing forgotten
    expect([...m.entries()]).toEqual([
      ['a', 3],
      ['b', 2],
    ]);
    m.set('c', 4);
    expect([...m.entries()]).toEqual([['c', 4]]);
  });

  it('getOrSet makes a missing value once and keeps it', () => {
    const m = new ResetMap<string, number>(10);
    let made = 0;
    const make = (k: string) => (made++, k.length);
    expect(m.getOrSet('abc', make)).toBe(3);
    expect(m.getOrSet('abc', make)).toBe(3);
    expect(made).toBe(1);
  });
});
