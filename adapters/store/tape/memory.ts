/**
 * In-memory trade tape (one exchange process without Redis: docs/exchange-api.md#binance-trades).
 * Ids are `max(previous + 1, time in ms)`, as depth's update ids: they increase, and a restart,
 * which forgets the tape, never gives an id it gave before (unless the process made more than
 * one trade a millisecond for longer than it was down).
 */
import type { BookSymbol } from '../../../kernel/domain.ts';
import { TAPE_CAPACITY, type TapeStore, type TapeTrade } from './port.ts';

/** Creates an empty tape keeping `capacity` trades per symbol; `now` is the clock of the id floor. */
export function createMemoryTapeStore(capacity = TAPE_CAPACITY, now: () => number = Date.now): TapeStore {
  const tapes = new Map<BookSymbol, TapeTrade[]>();
  const lastIds = new Map<BookSymbol, number>();
  const held = (symbol: BookSymbol): TapeTrade[] => tapes.get(symbol) ?? [];
  return {
    async append(symbol, trades) {
      const list = held(symbol);
      tapes.set(symbol, list);
      let last = Math.max(lastIds.get(symbol) ?? 0, now() - 1);
      const out = trades.map((t) => ({ ...t, symbol, id: ++last }));
      lastIds.set(symbol, last);
      list.push(...out);
      if (list.length > capacity) list.splice(0, list.length - capacity);
      return out.map((t) => ({ ...t }));
    },
    latest: async (symbol, limit) =>
      held(symbol)
        .slice(-limit)
        .map((t) => ({ ...t })),
    from: async (symbol, fromId, limit) =>
      held(symbol)
        .filter((t) => t.id >= fromId)
        .slice(0, limit)
        .map((t) => ({ ...t })),
    close: async () => undefined,
  };
}
