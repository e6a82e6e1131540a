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
import type { BookSymbol } from '../../kernel/domain.ts';

/** A book with its update id. */
export interface SequencedBook {
  book: BookSnapshot;
  id: number;
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
    const numbered = { book, id: Math.max((held?.id ?? 0) + 1, book.ts) };
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

/** The levels of `to` that differ from `from` (all of them when `from` is absent), and those of `from` gone from `to` at quantity 0. */
export function levelChanges(from: BookSnapshot | undefined, to: BookSnapshot): LevelChanges {
  return { bids: sideChanges(from?.bids ?? [], to.bids), asks: sideChanges(from?.asks ?? [], to.asks) };
}

function sideChanges(from: readonly BookLevel[], to: readonly BookLevel[]): [string, string][] {
  const before = new Map(wireLevels(from));
  const after = wireLevels(to);
  const out: [string, string][] = [];
  for (const [price, qty] of after) {
    if (before.get(price) !== qty) out.push([price, qty]);
    before.delete(price);
  }
  for (const price of before.keys()) out.push([price, '0.00000000']);
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

/**
 * Diff-depth events at one speed (every 100 ms or 1000 ms): each `tick` covers the update ids
 * since the previous tick's (`U` = previous `u` + 1), so consecutive events are contiguous and a
 * client's REST snapshot id always falls inside one.
 */
export class DepthBatches {
  private readonly last = new Map<BookSymbol, SequencedBook>();

  constructor(private readonly books: BookSequence) {}

  /** The event since the previous tick, or null when no book arrived; `wanted` false advances without building it. */
  tick(symbol: BookSymbol, wanted = true): DepthDiff | null {
    const now = this.books.of(symbol);
    const before = this.last.get(symbol);
    if (!now || now.id === before?.id) return null;
    this.last.set(symbol, now);
    if (!wanted) return null;
    return { symbol, U: before ? before.id + 1 : now.id, u: now.id, ...levelChanges(before?.book, now.book) };
  }

  /** The book of the last tick (a partial-depth stream sends its top levels). */
  lastOf(symbol: BookSymbol): SequencedBook | undefined {
    return this.last.get(symbol);
  }
}
