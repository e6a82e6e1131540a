/**
 * Account totals: positions valued at the bid, equity, and PnL = equity - (initialCash +
 * netDeposits), split into realized/unrealized (docs/exchange-api.md#totals-and-pnl).
 */

import type { Balances, PositionState } from '../../machines/exchange/ledger.ts';
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

/** What an equity point records of the totals (docs/exchange-api.md#equity-curve): no PnL against the invested base. */
export type EquityTotals = Pick<Totals, 'positionsValue' | 'equity' | 'realizedPnl' | 'unrealizedPnl'>;

/**
 * Values every open position at its bid. A position whose symbol has never had a book is
 * valued at its cost basis (unrealized 0) rather than at an invented price.
 */
export function equityTotals(b: Balances, bids: Bids): EquityTotals {
  let positionsValue = ZERO;
  let basis = ZERO;
  let realizedPnl = ZERO;
  for (const symbol in b.positions) {
    const p = b.positions[symbol as BookSymbol] as PositionState;
    realizedPnl = realizedPnl.plus(p.realizedPnl);
    if (p.qty.isZero()) continue;
    const bid = bids[p.symbol];
    positionsValue = positionsValue.plus(bid ? toMoney(p.qty.times(bid)) : p.costBasis);
    basis = basis.plus(p.costBasis);
  }
  return { positionsValue, equity: b.cash.plus(positionsValue), realizedPnl, unrealizedPnl: positionsValue.minus(basis) };
}

/**
 * The totals at `bids` (`equityTotals`), with pnl = equity - (initialCash + netDeposits) and
 * pnlPct = pnl / (initialCash + netDeposits) x 100, and 0 when that base is not positive.
 */
export function valueAccount(b: Balances, initialCash: Decimal, bids: Bids): Totals {
  const { positionsValue, equity, realizedPnl, unrealizedPnl } = equityTotals(b, bids);
  const invested = initialCash.plus(b.netDeposits);
  const pnl = equity.minus(invested);
  return {
    positionsValue,
    equity,
    netDeposits: b.netDeposits,
    pnl,
    pnlPct: invested.gt(0) ? toMoney(pnl.div(invested).times(100)) : ZERO,
    realizedPnl,
    unrealizedPnl,
  };
}
