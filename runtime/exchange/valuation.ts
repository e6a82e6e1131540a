/**
 * Account totals: positions valued at the bid, equity, and PnL = equity - (initialCash +
 * netDeposits), split into realized/unrealized (docs/exchange-api.md#totals-and-pnl).
 */

import { realizedTotal, type Balances } from '../../machines/exchange/ledger.ts';
import { type Decimal, toMoney, ZERO } from '../../machines/exchange/money.ts';
import type { BookSymbol } from '../../kernel/domain.ts';

/** Best bid per symbol used for valuation. */
export type Bids = Partial<Record<BookSymbol, Decimal>>;

/** Totals of one account at given bids. */
export interface Totals {
  positionsValue: Decimal;
  equity: Decimal;
  netDeposits: Decimal;
  pnl: Decimal;
  pnlPct: Decimal;
  realizedPnl: Decimal;
  unrealizedPnl: Decimal;
}

/**
 * Values every open position at its bid. A position whose symbol has never had a book is
 * valued at its cost basis (unrealized 0) rather than at an invented price.
 * pnlPct = pnl / (initialCash + netDeposits) x 100, and 0 when that base is not positive.
 */
export function valueAccount(b: Balances, initialCash: Decimal, bids: Bids): Totals {
  let positionsValue = ZERO;
  let basis = ZERO;
  for (const p of Object.values(b.positions)) {
    if (p.qty.isZero()) continue;
    const bid = bids[p.symbol];
    positionsValue = positionsValue.plus(bid ? toMoney(p.qty.times(bid)) : p.costBasis);
    basis = basis.plus(p.costBasis);
  }
  const equity = b.cash.plus(positionsValue);
  const invested = initialCash.plus(b.netDeposits);
  const pnl = equity.minus(invested);
  return {
    positionsValue,
    equity,
    netDeposits: b.netDeposits,
    pnl,
    pnlPct: invested.gt(0) ? toMoney(pnl.div(invested).times(100)) : ZERO,
    realizedPnl: realizedTotal(b),
    unrealizedPnl: positionsValue.minus(basis),
  };
}
