/**
 * Walks one side of a book snapshot for a market order (spec §1.6: buys at the ask, sells at
 * the bid, large orders walk levels; design: the snapshot is not consumed, depth running out
 * means a partial fill).
 */
import type { BookSnapshot } from '../../adapters/feed/port.ts';
import { Decimal, dec, MONEY_DP, toMoney, ZERO } from '../../machines/exchange/money.ts';

/** Order side. */
export type Side = 'BUY' | 'SELL';

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
  for (const [priceText, qtyText] of levels) {
    if (remaining.lte(0)) break;
    const price = dec(priceText);
    // A feed may quote more digits than the ledger keeps: take only what 10 digits can hold.
    const available = dec(qtyText).toDecimalPlaces(MONEY_DP, Decimal.ROUND_DOWN);
    if (price.lte(0) || available.lte(0)) continue;
    const qty = Decimal.min(remaining, available);
    fills.push({ price, qty, gross: toMoney(price.times(qty)) });
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
