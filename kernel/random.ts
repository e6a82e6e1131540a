/**
 * A seeded uniform generator (mulberry32), for whatever must make the same random choices on
 * every run with the same seed: the synthetic feeds in tests, the local chain's fault profile.
 *
 * @example
 *   const random = seededRandom(42);
 *   random(); // 0 <= x < 1, the same sequence for the same seed
 */

/** Uniform in [0, 1). */
export type Random = () => number;

/** Deterministic uniform numbers in [0, 1) from a 32-bit seed. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 0x1_0000_0000;
  };
}
