/**
 * Random sources for the synthetic feeds: `Math.random` in production, a seeded generator in
 * tests so that statistics are reproducible.
 *
 * @example
 *   const rnd = seededRandom(42); rnd(); // 0 <= x < 1
 */

/** Uniform in [0, 1). */
export type Random = () => number;

/** Deterministic uniform generator (mulberry32) for reproducible runs. */
export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A standard normal draw (Box-Muller) from a uniform source. */
export function normal(random: Random): number {
  const u = 1 - random(); // (0, 1]: log(0) never happens
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}
