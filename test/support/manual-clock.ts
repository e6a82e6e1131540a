/**
 * A clock that only moves when told to, so feeds can run simulated hours in milliseconds.
 *
 * @example
 *   const clock = new ManualClock();
 *   const feed = new SyntheticPriceFeed({ clock });
 *   clock.advance(15_000); // runs every timer due in the next 15 s, in order
 */
import type { Clock, TimerHandle } from '../../adapters/feed/clock.ts';

interface PendingTimer {
  id: number;
  at: number;
  callback: () => void;
}

/** Clock whose time moves only through `advance()`. */
export class ManualClock implements Clock {
  private timers: PendingTimer[] = [];
  private nextId = 1;

  constructor(private time = 1_763_700_000_000) {}

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, ms: number): TimerHandle {
    const timer = { id: this.nextId++, at: this.time + Math.max(0, ms), callback };
    this.timers.push(timer);
    return timer.id;
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }

  /** Number of timers waiting. */
  get pending(): number {
    return this.timers.length;
  }

  /** Moves time forward by `ms`, firing due timers in time order (timers they set also fire when due). */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      let due: PendingTimer | undefined;
      for (const t of this.timers) if (t.at <= end && (!due || t.at < due.at || (t.at === due.at && t.id < due.id))) due = t;
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.time = due.at;
      due.callback();
    }
    this.time = end;
  }
}
