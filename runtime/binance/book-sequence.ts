/**
 * Order books numbered for the Binance-shaped surface (docs/exchange-api.md#binance-market-streams):
 * every book the exchange takes gets an update id, so REST `depth` answers a `lastUpdateId` and
 * the diff streams carry `U`/`u` ranges that line up with it. The id is `max(previous + 1, ts)`:
 * increasing, surviving a restart (book times move on), and the same in every process that sees
 * the same books. A book is taken by the same rule as the book cache (an empty side or an older
 * time is ignored).
 */
import type { BookLevel, BookSnapshot } from '../../adapters/feed/port.ts';
import { dec, fmt } from '../../machines/exchange/money.ts';
import { BOOK_SYMBOLS, type BookSymbol } from '../../kernel/domain.ts';

/** A book with its update id, its levels as Binance writes them, and the levels it changed from the book before it. */
export interface SequencedBook {
  book: BookSnapshot;
  id: number;
  /** every level, 8 fraction digits, best first (made once per book) */
  wire: LevelChanges;
  changes: LevelChanges;
}

/** Changed levels between two books, Binance-formatted; a level gone has quantity "0.00000000". */
export interface LevelChanges {
  bids: [string, string][];
  asks: [string, string][];
}

/** A price or quantity as Binance writes it: 8 fraction digits. */
export const fmt8 = (text: string): string => fmt(dec(text), 8);

/** A book side as Binance sends it, best first, at most `limit` levels. */
export const wireLevels = (levels: readonly BookLevel[], limit = levels.length): [string, string][] =>
  levels.slice(0, limit).map(([p, q]) => [fmt8(p), fmt8(q)]);

/** The latest numbered book per symbol. */
export class BookSequence {
  private readonly latest = new Map<BookSymbol, SequencedBook>();
  private readonly listeners: ((b: SequencedBook) => void)[] = [];

  /** Numbers `book` and keeps it; null when it is not taken (empty side, older than the one held). */
  accept(book: BookSnapshot): SequencedBook | null {
    if (book.bids.length === 0 || book.asks.length === 0) return null;
    const held = this.latest.get(book.symbol);
    if (held && held.book.ts > book.ts) return null;
    const wire = { bids: wireLevels(book.bids), asks: wireLevels(book.asks) };
    const changes = { bids: sideChanges(held?.wire.bids ?? [], wire.bids), asks: sideChanges(held?.wire.asks ?? [], wire.asks) };
    const numbered = { book, id: Math.max((held?.id ?? 0) + 1, book.ts), wire, changes };
    this.latest.set(book.symbol, numbered);
    for (const l of this.listeners) l(numbered);
    return numbered;
  }

  /** The latest numbered book of `symbol`. */
  of(symbol: BookSymbol): SequencedBook | undefined {
    return this.latest.get(symbol);
  }

  /** Calls `listener` with every book taken from now on. */
  onBook(listener: (b: SequencedBook) => void): () => void {
    this.listeners.push(listener);
    return () => void this.listeners.splice(this.listeners.indexOf(listener), 1);
  }
}

/** The levels of `after` that differ from `before`, and those of `before` gone from `after` at quantity 0 (both Binance-written). */
function sideChanges(before: readonly [string, string][], after: readonly [string, string][]): [string, string][] {
  const held = new Map(before);
  const out: [string, string][] = [];
  for (const [price, qty] of after) {
    if (held.get(price) !== qty) out.push([price, qty]);
    held.delete(price);
  }
  for (const price of held.keys()) out.push([price, ZERO_QTY]);
  return out;
}

/** One diff-depth event's content: the range of update ids it covers and the levels that changed. */
export interface DepthDiff extends LevelChanges {
  symbol: BookSymbol;
  /** first update id covered */
  U: number;
  /** last update id covered */
  u: number;
}

interface Batch {
  /** the last update id sent (or the starting book's) */
  lastU: number;
  current: SequencedBook;
  /** prices touched by any book since the last tick, per side */
  bids: Set<string>;
  asks: Set<string>;
}

/**
 * Diff-depth events at one speed (every 100 ms or 1000 ms), as Binance sends them: each `tick`
 * covers the update ids since the previous tick's (`U` = previous `u` + 1), and carries every
 * price level that any book in that range touched, with its quantity now (0 when gone); so
 * consecutive events are contiguous and a client that applies them on top of any REST snapshot
 * inside the range ends with the current book exactly.
 */
export class DepthBatches {
  private readonly batches = new Map<BookSymbol, Batch>();

  /** Starts from the books held now; a symbol's first book afterwards is its starting point, sent with no event. */
  constructor(books: BookSequence) {
    for (const symbol of BOOK_SYMBOLS) {
      const held = books.of(symbol);
      if (held) this.batches.set(symbol, { lastU: held.id, current: held, bids: new Set(), asks: new Set() });
    }
    books.onBook((numbered) => this.take(numbered));
  }

  private take(numbered: SequencedBook): void {
    const batch = this.batches.get(numbered.book.symbol);
    if (!batch) {
      this.batches.set(numbered.book.symbol, { lastU: numbered.id, current: numbered, bids: new Set(), asks: new Set() });
      return;
    }
    for (const [price] of numbered.changes.bids) batch.bids.add(price);
    for (const [price] of numbered.changes.asks) batch.asks.add(price);
    batch.current = numbered;
  }

  /** The event since the previous tick, or null when no book arrived; `wanted` false advances without building it. */
  tick(symbol: BookSymbol, wanted = true): DepthDiff | null {
    const batch = this.batches.get(symbol);
    if (!batch || batch.current.id === batch.lastU) return null;
    const U = batch.lastU + 1;
    batch.lastU = batch.current.id;
    const touched = { bids: batch.bids, asks: batch.asks };
    batch.bids = new Set();
    batch.asks = new Set();
    if (!wanted) return null;
    const now = batch.current.wire;
    const finalOf = (levels: [string, string][], prices: Set<string>): [string, string][] => {
      const held = new Map(levels);
      return [...prices].map((p) => [p, held.get(p) ?? ZERO_QTY]);
    };
    return { symbol, U, u: batch.current.id, bids: finalOf(now.bids, touched.bids), asks: finalOf(now.asks, touched.asks) };
  }

  /** The book of the last tick (a partial-depth stream sends its top levels). */
  lastOf(symbol: BookSymbol): SequencedBook | undefined {
    const batch = this.batches.get(symbol);
    return batch && batch.current.id === batch.lastU ? batch.current : undefined;
  }
}

const ZERO_QTY = '0.00000000';
