/**
 * Random sources for the synthetic feeds: `Math.random` in production, a seeded generator in
 * tests so that statistics are reproducible.
 *
 * @example
 *   const rnd = seededRandom(42); rnd(); // 0 <= x < 1
 */

export { seededRandom, type Random } from '../../kernel/random.ts';
import type { Random } from '../../kernel/random.ts';

/** A standard normal draw (Box-Muller) from a uniform source. */
export function normal(random: Random): number {
  const u = 1 - random(); // (0, 1]: log(0) never happens
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}
