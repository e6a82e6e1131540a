/**
 * Matching resting orders against a book that just arrived (docs/orders.md#resting-fills): a
 * resting BUY fills when the book's asks reach its price (best ask at or below it), at its own
 * limit price, for no more than the quantity shown at or below it less what was already consumed
 * from this snapshot; a SELL symmetrically against the bids. Orders go best price first, earliest
 * first at one price, and the walk stops at the first order the book no longer reaches: the cost is
 * proportional to the orders that cross, not to the orders resting. What each fill takes is
 * consumed from the snapshot (docs/orders.md#consumed-liquidity).
 */
import type { BookSnapshot } from '../../../adapters/feed/port.ts';
import { Decimal } from '../../../machines/exchange/money.ts';
import { consume, leftAt, parsedLevel, takenSide, withinLimit } from '../walk-book.ts';
import type { RestingEntry, RestingOrders } from './resting.ts';

/** One fill decided by a book: `qty` of `entry` at its limit price, justified by the book of `bookTs`. */
export interface MatchedFill {
  entry: RestingEntry;
  qty: Decimal;
  bookTs: number;
  /** the book the fill took from (its liquidity goes back if the fill does not land) */
  book: BookSnapshot;
  /** the levels it took, by index in the side it took from */
  levels: { level: number; qty: Decimal }[];
}

/** Every fill `book` gives the resting orders of its symbol; fully matched orders leave the listing. */
export function matchBook(resting: RestingOrders, book: BookSnapshot): MatchedFill[] {
  return [...matchSide(resting, book, 'BUY'), ...matchSide(resting, book, 'SELL')];
}

/** Resting orders of `side` against the levels a taker of that side takes (a BUY the asks). */
function matchSide(resting: RestingOrders, book: BookSnapshot, side: 'BUY' | 'SELL'): MatchedFill[] {
  const levels = takenSide(book, side);
  const out: MatchedFill[] = [];
  const matched: RestingEntry[] = [];
  // levels before `top` are used up for every later order (each reaches no further than the one before it)
  let top = 0;
  for (const entry of resting.best(book.symbol, side)) {
    while (top < levels.length && leftAt(book, side, top).lte(0)) top++;
    const best = top < levels.length ? parsedLevel(levels, top) : null;
    if (!best || !withinLimit(side, best.price, entry.price)) break;
    const taken: MatchedFill['levels'] = [];
    let want = entry.unmatched;
    for (let i = top; i < levels.length && want.gt(0); i++) {
      const level = parsedLevel(levels, i);
      if (!level) continue;
      if (!withinLimit(side, level.price, entry.price)) break;
      const qty = Decimal.min(leftAt(book, side, i), want);
      if (qty.lte(0)) continue;
      taken.push({ level: i, qty });
      want = want.minus(qty);
    }
    consume(book, side, taken);
    const qty = entry.unmatched.minus(want);
    entry.unmatched = want;
    out.push({ entry, qty, bookTs: book.ts, book, levels: taken });
    if (want.isZero()) matched.push(entry);
  }
  for (const e of matched) resting.unlist(e);
  return out;
}
