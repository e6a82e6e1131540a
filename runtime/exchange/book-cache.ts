/**
 * The latest order book per symbol, as the feed delivered it, and the freshness rule:
 * a book older than `maxAgeMs` is never used to trade or to quote a single price
 * (docs/exchange-api.md#symbols: a 30 s cut-off by default).
 */
import { type BookSnapshot } from '../../adapters/feed/port.ts';
import { dec } from '../../machines/exchange/money.ts';
import type { Bids } from './valuation.ts';
import { BOOK_SYMBOLS, type BookSymbol } from '../../kernel/domain.ts';

/** Latest books by symbol, with the freshness rule. */
export interface BookCache {
  /**
   * Keeps `book` when it is newer than the one held (true when kept): a book of the same time is the
   * same snapshot, and keeping it again would give back what orders consumed from it
   * (docs/orders.md#consumed-liquidity). A book with an empty side cannot price anything and is ignored.
   */
  put(book: BookSnapshot): boolean;
  /** The book of `symbol` when its age (now - ts) is at most maxAgeMs, else null. */
  fresh(symbol: BookSymbol): BookSnapshot | null;
  /** Whether `book` is still young enough to trade on. */
  isFresh(book: BookSnapshot): boolean;
  /** Every fresh book, in the order BTCUSDT, ETHUSDT, SOLUSDT. */
  freshAll(): BookSnapshot[];
  /**
   * `render(freshAll())`, computed again only when a book arrived or a fresh book went stale since
   * the last call (GET /prices answers from it without rebuilding its JSON per request).
   */
  renderFresh<T>(render: (books: BookSnapshot[]) => T): T;
  /** Best bid of the latest book per symbol, whatever its age (used only to value positions; the same object until a book arrives: do not change it). */
  bids(): Bids;
}

/** Creates an empty cache; `now` is injectable for tests. */
export function bookCache(maxAgeMs: number, now: () => number = Date.now): BookCache {
  const books = new Map<BookSymbol, BookSnapshot>();
  const isFresh = (b: BookSnapshot) => now() - b.ts <= maxAgeMs;
  const freshAll = () => BOOK_SYMBOLS.map((s) => books.get(s)).filter((b): b is BookSnapshot => b !== undefined && isFresh(b));
  let rendered: { value: unknown; render: unknown; validUntil: number } | null = null;
  // parsed once per book that arrives, not once per order that values an account
  let bestBids: Bids | null = null;
  return {
    put(book) {
      if (book.bids.length === 0 || book.asks.length === 0) return false;
      const held = books.get(book.symbol);
      if (held && held.ts >= book.ts) return false;
      books.set(book.symbol, book);
      rendered = null;
      bestBids = null;
      return true;
    },
    renderFresh<T>(render: (books: BookSnapshot[]) => T): T {
      if (rendered && rendered.render === render && now() <= rendered.validUntil) return rendered.value as T;
      const fresh = freshAll();
      const value = render(fresh);
      // valid until the first fresh book turns stale (or a new book arrives)
      rendered = { value, render, validUntil: Math.min(...fresh.map((b) => b.ts + maxAgeMs)) };
      return value;
    },
    fresh(symbol) {
      const b = books.get(symbol);
      return b && isFresh(b) ? b : null;
    },
    isFresh,
    freshAll,
    bids() {
      if (bestBids) return bestBids;
      const out: Bids = {};
      for (const [symbol, b] of books) {
        const best = b.bids[0];
        if (best) out[symbol] = dec(best[0]);
      }
      return (bestBids = out);
    },
  };
}
