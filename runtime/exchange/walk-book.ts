/**
 * Walks one side of a book snapshot for a market order (docs/exchange-api.md#orders: buys at the
 * ask, sells at the bid, large orders walk levels; the snapshot is not consumed, depth running out
 * means a partial fill).
 */
import type { Side } from '../../machines/exchange/ledger.ts';
import type { BookLevel, BookSnapshot } from '../../adapters/feed/port.ts';
import { Decimal, dec, MONEY_DP, toMoney, ZERO } from '../../machines/exchange/money.ts';

/** One book level taken by an order. `gross` = price x qty, rounded to 10 fraction digits. */
export interface Fill {
  price: Decimal;
  qty: Decimal;
  gross: Decimal;
}

/** What a market order of `requested` would get from the book right now. */
export interface BookWalk {
  fills: Fill[];
  filledQty: Decimal;
  gross: Decimal;
  /** Volume-weighted average execution price (gross / filledQty), zero when nothing fills. */
  avgPrice: Decimal;
  /** True when the side ran out of depth before `requested` was filled. */
  partial: boolean;
}

/**
 * Takes levels best-first: a BUY walks the asks, a SELL the bids, until `requested` is
 * filled or the side is exhausted. Levels with a non-positive price or qty are skipped.
 */
export function walkBook(book: Pick<BookSnapshot, 'bids' | 'asks'>, side: Side, requested: Decimal): BookWalk {
  const levels = side === 'BUY' ? book.asks : book.bids;
  const fills: Fill[] = [];
  let remaining = requested;
  for (let i = 0; i < levels.length && remaining.gt(0); i++) {
    const level = parsedLevel(levels, i);
    if (!level) continue;
    const qty = Decimal.min(remaining, level.available);
    fills.push({ price: level.price, qty, gross: toMoney(level.price.times(qty)) });
    remaining = remaining.minus(qty);
  }
  const filledQty = fills.reduce((a, f) => a.plus(f.qty), ZERO);
  const gross = fills.reduce((a, f) => a.plus(f.gross), ZERO);
  return {
    fills,
    filledQty,
    gross,
    avgPrice: filledQty.isZero() ? ZERO : toMoney(gross.div(filledQty)),
    partial: remaining.gt(0),
  };
}

/** A level as decimals; null when its price or qty is not positive. */
type ParsedLevel = { price: Decimal; available: Decimal } | null;

// A book is immutable once delivered: its levels are parsed once, when an order first reaches them.
const parsedLevels = new WeakMap<readonly BookLevel[], ParsedLevel[]>();

function parsedLevel(levels: readonly BookLevel[], i: number): ParsedLevel {
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
