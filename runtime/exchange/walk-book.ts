/**
 * Walks one side of a book snapshot for an order that takes liquidity (docs/exchange-api.md#orders:
 * buys at the ask, sells at the bid, large orders walk levels, depth running out means a partial
 * fill), and keeps what orders took from each level of each snapshot: **consumed liquidity**
 * (docs/orders.md#consumed-liquidity). A walk sees a level's quantity less what earlier orders took
 * from the same snapshot (the same book object); a newer snapshot is a new object with nothing
 * consumed, even when a feed reuses a side's levels from the book before.
 *
 * @example
 *   const walk = walkBook(book, 'BUY', dec('2'));          // what is left to take now
 *   consume(book, 'BUY', walk.fills);                        // taken: gone for the next order
 *   giveBack(book, 'BUY', walk.fills);                       // its commit failed: back on the levels
 */
import type { Side } from '../../machines/exchange/ledger.ts';
import type { BookLevel, BookSnapshot } from '../../adapters/feed/port.ts';
import { Decimal, dec, MONEY_DP, toMoney, ZERO } from '../../machines/exchange/money.ts';

/** One book level taken by an order. `gross` = price x qty, rounded to 10 fraction digits. */
export interface Fill {
  price: Decimal;
  qty: Decimal;
  gross: Decimal;
  /** index of the level in its side of the book */
  level: number;
}

/** What an order would get from the book right now. */
export interface BookWalk {
  fills: Fill[];
  filledQty: Decimal;
  gross: Decimal;
  /** Volume-weighted average execution price (gross / filledQty), zero when nothing fills. */
  avgPrice: Decimal;
  /** True when the side (or the part within the limit price) ran out before the order was filled. */
  partial: boolean;
}

/** Bounds of a walk besides its quantity. */
export interface WalkLimits {
  /** take only levels at this price or better (a limit order) */
  limit?: Decimal;
  /** walk by a quote amount instead (MARKET by quoteOrderQty): spend at most this much gross */
  quote?: Decimal;
}

/** The levels a taker on `side` takes: a BUY the asks, a SELL the bids. */
export const takenSide = (book: Pick<BookSnapshot, 'bids' | 'asks'>, side: Side): readonly BookLevel[] => (side === 'BUY' ? book.asks : book.bids);

/** Whether `price` is within `limit` for a taker on `side` (a BUY pays at most, a SELL gets at least). */
export const withinLimit = (side: Side, price: Decimal, limit: Decimal): boolean => (side === 'BUY' ? price.lte(limit) : price.gte(limit));

/**
 * Takes levels best-first: a BUY walks the asks, a SELL the bids, until `requested` is filled, the
 * quote amount is spent, the limit price is passed or the side is exhausted. Levels with a
 * non-positive price or qty, and levels earlier orders used up, are skipped.
 */
export function walkBook(book: Pick<BookSnapshot, 'bids' | 'asks'>, side: Side, requested: Decimal, limits: WalkLimits = {}): BookWalk {
  const levels = takenSide(book, side);
  const fills: Fill[] = [];
  let remaining = requested;
  let budget = limits.quote;
  for (let i = 0; i < levels.length && remaining.gt(0); i++) {
    const level = parsedLevel(levels, i);
    if (!level) continue;
    if (limits.limit && !withinLimit(side, level.price, limits.limit)) break;
    const left = level.available.minus(consumedAt(book, side, i));
    if (left.lte(0)) continue;
    // the smaller of two decimals is one of them: no new decimal is made for it
    let qty = remaining.lte(left) ? remaining : left;
    if (budget) {
      const affordable = budget.div(level.price).toDecimalPlaces(MONEY_DP, Decimal.ROUND_DOWN);
      if (affordable.lt(qty)) qty = affordable;
    }
    if (qty.lte(0)) break;
    const gross = toMoney(level.price.times(qty));
    fills.push({ price: level.price, qty, gross, level: i });
    remaining = remaining.minus(qty);
    if (budget) budget = budget.minus(gross);
  }
  let filledQty = ZERO;
  let gross = ZERO;
  for (let i = 0; i < fills.length; i++) {
    const f = fills[i] as Fill;
    // the first fill is the sum so far (most orders take one level)
    filledQty = i === 0 ? f.qty : filledQty.plus(f.qty);
    gross = i === 0 ? f.gross : gross.plus(f.gross);
  }
  return {
    fills,
    filledQty,
    gross,
    avgPrice: filledQty.isZero() ? ZERO : toMoney(gross.div(filledQty)),
    partial: remaining.gt(0),
  };
}

/** A level as decimals; null when its price or qty is not positive. */
export type ParsedLevel = { price: Decimal; available: Decimal } | null;

// A book is immutable once delivered: its levels are parsed once, when an order first reaches them.
const parsedLevels = new WeakMap<readonly BookLevel[], ParsedLevel[]>();
// What orders took from each level of a snapshot, by the side they took as (the snapshot object is its identity).
const consumedLevels = new WeakMap<object, { BUY: Decimal[]; SELL: Decimal[] }>();

/** Level `i` of `levels` as decimals (null when unusable), parsed once per snapshot. */
export function parsedLevel(levels: readonly BookLevel[], i: number): ParsedLevel {
  let parsed = parsedLevels.get(levels);
  if (!parsed) parsedLevels.set(levels, (parsed = []));
  const known = parsed[i];
  if (known !== undefined) return known;
  const [priceText, qtyText] = levels[i] as BookLevel;
  const price = dec(priceText);
  // A feed may quote more digits than the ledger keeps: take only what 10 digits can hold.
  const available = dec(qtyText).toDecimalPlaces(MONEY_DP, Decimal.ROUND_DOWN);
  return (parsed[i] = price.lte(0) || available.lte(0) ? null : { price, available });
}

/** What takers on `side` took from level `i` of this snapshot so far. */
export const consumedAt = (book: object, side: Side, i: number): Decimal => consumedLevels.get(book)?.[side][i] ?? ZERO;

/** What is left for a taker on `side` at level `i` (zero for an unusable level). */
export function leftAt(book: Pick<BookSnapshot, 'bids' | 'asks'>, side: Side, i: number): Decimal {
  const level = parsedLevel(takenSide(book, side), i);
  return level ? level.available.minus(consumedAt(book, side, i)) : ZERO;
}

/** Marks `fills` as taken from the snapshot: the next order on this snapshot sees less. */
export function consume(book: Pick<BookSnapshot, 'bids' | 'asks'>, side: Side, fills: readonly Pick<Fill, 'level' | 'qty'>[]): void {
  let consumed = consumedLevels.get(book);
  if (!consumed) consumedLevels.set(book, (consumed = { BUY: [], SELL: [] }));
  const taken = consumed[side];
  for (const f of fills) taken[f.level] = (taken[f.level] ?? ZERO).plus(f.qty);
}

/** Puts `fills` back (their order was not committed). */
export function giveBack(book: Pick<BookSnapshot, 'bids' | 'asks'>, side: Side, fills: readonly Pick<Fill, 'level' | 'qty'>[]): void {
  consume(
    book,
    side,
    fills.map((f) => ({ level: f.level, qty: f.qty.neg() })),
  );
}
