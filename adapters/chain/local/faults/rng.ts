/**
 * The fault profile's dice (docs/operations.md#a-fault-profile): a small seeded generator
 * (mulberry32), so a profile with `seed=` makes the same choices for the same sequence of
 * requests, and a test that counts drops gets the same count every run.
 *
 * @example
 *   const random = seededRandom(7);
 *   if (random() < 0.3) drop();
 */

export { seededRandom } from '../../../../kernel/random.ts';

/** A seed for a profile that names none (logged, so the run can be repeated with `seed=`). */
export function freshSeed(): number {
  return Math.floor(Math.random() * 0x1_0000_0000);
}
