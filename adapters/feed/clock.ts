/**
 * Time as the synthetic feeds see it, injectable so tests run simulated hours in milliseconds.
 *
 * @example
 *   const feed = new SyntheticPriceFeed({ clock: systemClock });
 */

/** A handle returned by `Clock.setTimeout`. */
export type TimerHandle = unknown;

/** Wall time plus one-shot timers. */
export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** The real clock (Date.now and Node timers). */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};
