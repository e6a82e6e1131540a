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

/**
 * Runs `step` at once and then again after the delay each run returns, until stopped; a step
 * may itself stop the loop (a listener that stops its feed).
 */
export class Repeater {
  private timer: TimerHandle | undefined;
  private active = false;

  constructor(
    private readonly clock: Clock,
    private readonly step: () => number,
  ) {}

  /** Starts the loop; false when it was already running. */
  start(): boolean {
    if (this.active) return false;
    this.active = true;
    this.run();
    return true;
  }

  /** Stops the loop; false when it was not running. */
  stop(): boolean {
    if (!this.active) return false;
    this.active = false;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    return true;
  }

  private run(): void {
    const delayMs = this.step();
    if (!this.active) return;
    this.timer = this.clock.setTimeout(() => {
      if (this.active) this.run();
    }, delayMs);
  }
}
