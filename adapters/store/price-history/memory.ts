/** In-memory PriceHistory (unit tests, and the state behind the embedded file store): a ts-sorted array, binary search, trimmed on append. */
import { DEFAULT_RETENTION, type PriceHistory, type PriceHistoryRetention, type Tick } from './port.ts';

/** A memory history: the port plus synchronous access for stores built on it. */
export interface MemoryPriceHistory extends PriceHistory {
  appendNow(tick: Tick): void;
  /** Every tick held, oldest first (compaction). */
  all(): Tick[];
}

/** Creates an empty in-memory price history. Lost on restart (the file and Redis adapters are not). */
export function createMemoryPriceHistory(retention: PriceHistoryRetention = DEFAULT_RETENTION): MemoryPriceHistory {
  const ticks: Tick[] = [];

  /** Index of the first tick with ts > tsMs. */
  const upperBound = (tsMs: number): number => {
    let lo = 0;
    let hi = ticks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((ticks[mid] as Tick).ts <= tsMs) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };

  return {
    appendNow(tick) {
      const at = upperBound(tick.ts);
      const prev = ticks[at - 1];
      const copy: Tick = tick.signed ? { price: tick.price, ts: tick.ts, signed: { ...tick.signed } } : { price: tick.price, ts: tick.ts };
      if (prev && prev.ts === tick.ts) ticks[at - 1] = copy;
      else ticks.splice(at, 0, copy);
      const newest = (ticks[ticks.length - 1] as Tick).ts;
      const keepFrom = Math.max(upperBound(newest - retention.retentionMs - 1), ticks.length - retention.maxTicks);
      if (keepFrom > 0) ticks.splice(0, keepFrom);
    },
    all: () => ticks.slice(),
    async append(tick) {
      this.appendNow(tick);
    },
    async latest() {
      return ticks[ticks.length - 1];
    },
    async atOrBefore(tsMs) {
      return ticks[upperBound(tsMs) - 1];
    },
    async hasTickAtOrAfter(tsMs) {
      const last = ticks[ticks.length - 1];
      return last !== undefined && last.ts >= tsMs;
    },
    async between(fromMs, toMs) {
      return toMs < fromMs ? [] : ticks.slice(upperBound(fromMs - 1), upperBound(toMs)).map((t) => ({ ...t }));
    },
    async size() {
      return ticks.length;
    },
  };
}
