import { describe, expect, it } from 'vitest';
import { backoffMs } from './backoff.ts';

describe('backoff', () => {
  it('doubles from the base per failure up to the max; the first retry waits the base', () => {
    const policy = { baseMs: 250, maxMs: 5_000 };
    expect([0, 1, 2, 3, 4, 5, 6, 7, 100].map((f) => backoffMs(f, policy))).toEqual([250, 250, 500, 1_000, 2_000, 4_000, 5_000, 5_000, 5_000]);
    // the settlement effects' policy (machines/bet.ts DEFAULT_RETRY)
    expect([1, 2, 3, 4, 5, 6, 7, 8, 10_000].map((n) => backoffMs(n, { baseMs: 500, maxMs: 30_000 }))).toEqual([
      500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000,
    ]);
  });

  it('full jitter draws below the ceiling, equal jitter between its half and itself', () => {
    const at = (r: number) => () => r;
    expect(backoffMs(3, { baseMs: 100, maxMs: 3_000, jitter: 'full' }, at(0))).toBe(0);
    expect(backoffMs(3, { baseMs: 100, maxMs: 3_000, jitter: 'full' }, at(0.5))).toBe(200);
    expect(backoffMs(3, { baseMs: 100, maxMs: 3_000, jitter: 'equal' }, at(0))).toBe(200);
    expect(backoffMs(3, { baseMs: 100, maxMs: 3_000, jitter: 'equal' }, at(0.999))).toBe(400);
    const draws = Array.from({ length: 200 }, () => backoffMs(20, { baseMs: 100, maxMs: 3_000, jitter: 'full' }));
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...draws)).toBeLessThanOrEqual(3_000);
    expect(new Set(draws).size).toBeGreaterThan(50); // not all in the same instant
  });
});
