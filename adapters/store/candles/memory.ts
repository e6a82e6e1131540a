/** In-memory candle store: a sorted array per symbol (unit tests, and the base of `file.ts`). */
import type { BookSymbol } from '../../../kernel/domain.ts';
import { CANDLE_RETENTION, pickLimit, type Candle, type CandleStore } from './port.ts';

/** Candles per symbol, oldest first, bounded by `retention`. */
export class CandleSeries {
  private readonly bySymbol = new Map<BookSymbol, Candle[]>();

  constructor(private readonly retention = CANDLE_RETENTION) {}

  /** Inserts or replaces by openTime; drops the oldest past the bound. */
  put(symbol: BookSymbol, candle: Candle): void {
    const list = this.bySymbol.get(symbol) ?? [];
    this.bySymbol.set(symbol, list);
    const last = list[list.length - 1];
    if (!last || last.openTime < candle.openTime) list.push({ ...candle });
    else {
      const i = list.findIndex((c) => c.openTime >= candle.openTime);
      if (list[i]?.openTime === candle.openTime) list[i] = { ...candle };
      else list.splice(i, 0, { ...candle });
    }
    if (list.length > this.retention) list.splice(0, list.length - this.retention);
  }

  /** As CandleStore.range. */
  range(symbol: BookSymbol, fromMs: number, toMs: number, limit: number, newest = false): Candle[] {
    const inRange = (this.bySymbol.get(symbol) ?? []).filter((c) => c.openTime >= fromMs && c.openTime <= toMs);
    return pickLimit(inRange, limit, newest).map((c) => ({ ...c }));
  }

  /** Every symbol's candles (compaction). */
  all(): [BookSymbol, Candle[]][] {
    return [...this.bySymbol.entries()];
  }

  /** Candles held in all. */
  size(): number {
    let n = 0;
    for (const list of this.bySymbol.values()) n += list.length;
    return n;
  }
}

/** Creates an empty in-memory store. */
export function createMemoryCandleStore(retention = CANDLE_RETENTION): CandleStore {
  const series = new CandleSeries(retention);
  return {
    put: async (symbol, candle) => series.put(symbol, candle),
    range: async (symbol, fromMs, toMs, limit, newest) => series.range(symbol, fromMs, toMs, limit, newest),
    close: async () => undefined,
  };
}
