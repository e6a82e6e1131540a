/**
 * The fault profile's dice (docs/operations.md#a-fault-profile): a small seeded generator
 * (mulberry32), so a profile with `seed=` makes the same choices for the same sequence of
 * requests, and a test that counts drops gets the same count every run.
 *
 * @example
 *   const random = seededRandom(7);
 *   if (random() < 0.3) drop();
 */

/** Uniform numbers in [0, 1) from a 32-bit seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 0x1_0000_0000;
  };
}

/** A seed for a profile that names none (logged, so the run can be repeated with `seed=`). */
export function freshSeed(): number {
  return Math.floor(Math.random() * 0x1_0000_0000);
}
