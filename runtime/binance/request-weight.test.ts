import { describe, expect, it } from 'vitest';
import { RequestWeights } from './request-weight.ts';

describe('request weights', () => {
  it('counts per address within a UTC minute, refuses past the limit until the minute ends', () => {
    let now = Date.parse('2026-01-01T00:00:50Z');
    const w = new RequestWeights(30, () => now);
    expect(w.spend('a', 20)).toEqual({ used: 20, over: false, retryAfterSeconds: 10 });
    expect(w.spend('b', 5).used).toBe(5);
    expect(w.spend('a', 10)).toMatchObject({ used: 30, over: false });
    expect(w.spend('a', 1)).toMatchObject({ used: 31, over: true, retryAfterSeconds: 10 });
    now += 10_000;
    expect(w.spend('a', 1)).toEqual({ used: 1, over: false, retryAfterSeconds: 60 });
  });
});
