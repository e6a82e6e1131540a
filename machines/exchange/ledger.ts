/**
 * The account ledger as pure functions over decimal state: trades with the average-cost
 * method, cash movements, and the journal entries that record each change so balances can
 * be rebuilt by replay (docs/exchange-api.md#orders; docs/decisions.md#order-execution).
 *
 * Average-cost method: a position keeps its cost basis (everything paid for the units held,
 * buy fees included). A buy adds gross + fee to the basis; a sell releases basis in
 * proportion to the quantity sold (all of it when the position closes) and realizes
 * (gross - fee) - released basis. avgCost = basis / qty. Hence, exactly:
 * pnl = realizedPnl + unrealizedPnl = equity - (initialCash + netDeposits).
 *
 * Locks (docs/orders.md#locking): an open order reserves part of the cash (a BUY) or of a position
 * (a SELL). A lock moves nothing: `cash` and `qty` stay the totals, `cashLocked` and `locked` say how
 * much of them open orders hold, and what is free is the difference. Every lock and release is a
 * journal entry (LOCK / UNLOCK), so free and locked replay like every other balance.
 */

import { type Decimal, toMoney, ZERO } from './money.ts';
import type { BookSymbol } from '../../kernel/domain.ts';

/** Order side. */
export type Side = 'BUY' | 'SELL';

/** One held (or formerly held) instrument. Amounts in USDT, qty in the base asset. */
export interface PositionState {
  symbol: BookSymbol;
  qty: Decimal;
  /** Total cost of the units held, buy fees included. */
  costBasis: Decimal;
  /** Profit realized by sells of this symbol, sell fees and released buy fees included. */
  realizedPnl: Decimal;
  /** Part of `qty` held by open SELL orders (docs/orders.md#locking). */
  locked: Decimal;
}

/** The balances of one account that every change updates. */
export interface Balances {
  cash: Decimal;
  /** Part of `cash` held by open BUY orders (docs/orders.md#locking). */
  cashLocked: Decimal;
  /** Sum of deposits, withdrawals and manual cash adjustments (not profit: docs/exchange-api.md#totals-and-pnl). */
  netDeposits: Decimal;
  /** Total fees charged on trades. */
  feesPaid: Decimal;
  positions: Partial<Record<BookSymbol, PositionState>>;
}

/** An empty position. */
export const flatPosition = (symbol: BookSymbol): PositionState => ({ symbol, qty: ZERO, costBasis: ZERO, realizedPnl: ZERO, locked: ZERO });

/** Average cost per unit held, zero when flat. */
export const avgCost = (p: PositionState): Decimal => (p.qty.isZero() ? ZERO : toMoney(p.costBasis.div(p.qty)));

/** Fee on a trade: gross x feeRate, rounded to 10 fraction digits, in USDT on buys and sells (docs/decisions.md#order-execution). */
export const tradeFee = (gross: Decimal, feeRate: Decimal): Decimal => toMoney(gross.times(feeRate));

/** The executed part of an order, as the journal records it. */
export interface TradeFacts {
  symbol: BookSymbol;
  side: Side;
  qty: Decimal;
  gross: Decimal;
  fee: Decimal;
}

/** Applies an executed trade to a position with the average-cost method. */
export function applyTradeToPosition(p: PositionState, t: TradeFacts): PositionState {
  if (t.side === 'BUY') {
    return { ...p, qty: p.qty.plus(t.qty), costBasis: p.costBasis.plus(t.gross).plus(t.fee) };
  }
  const closes = t.qty.gte(p.qty);
  const released = closes ? p.costBasis : toMoney(p.costBasis.times(t.qty).div(p.qty));
  return {
    ...p,
    qty: p.qty.minus(t.qty),
    costBasis: p.costBasis.minus(released),
    realizedPnl: p.realizedPnl.plus(t.gross.minus(t.fee).minus(released)),
  };
}

/** Cash change of a trade: buys pay gross + fee, sells receive gross - fee. */
export const tradeCashDelta = (t: TradeFacts): Decimal => (t.side === 'BUY' ? t.gross.plus(t.fee).neg() : t.gross.minus(t.fee));

/** Applies a trade to the balances (the caller has checked cash/position are sufficient). */
export function applyTrade(b: Balances, t: TradeFacts): Balances {
  const before = b.positions[t.symbol] ?? flatPosition(t.symbol);
  return {
    cash: b.cash.plus(tradeCashDelta(t)),
    cashLocked: b.cashLocked,
    netDeposits: b.netDeposits,
    feesPaid: b.feesPaid.plus(t.fee),
    positions: { ...b.positions, [t.symbol]: applyTradeToPosition(before, t) },
  };
}

/** Applies a deposit, withdrawal or manual adjustment: cash and net deposits move together. */
export const applyCashMovement = (b: Balances, delta: Decimal): Balances => ({
  ...b,
  cash: b.cash.plus(delta),
  netDeposits: b.netDeposits.plus(delta),
});

/** Balances of a newly opened account. The initial cash is not a deposit (docs/exchange-api.md#totals-and-pnl). */
export const openingBalances = (initialCash: Decimal): Balances => ({
  cash: initialCash,
  cashLocked: ZERO,
  netDeposits: ZERO,
  feesPaid: ZERO,
  positions: {},
});

/** What a lock holds: USDT (a BUY's cash) or a symbol's base asset (a SELL's position). */
export type LockAsset = 'USDT' | BookSymbol;

/** Cash not held by open orders. */
export const freeCash = (b: Balances): Decimal => b.cash.minus(b.cashLocked);

/** Quantity of `symbol` not held by open orders. */
export const freeQty = (b: Balances, symbol: BookSymbol): Decimal => {
  const p = b.positions[symbol];
  return p ? p.qty.minus(p.locked) : ZERO;
};

/** Locks `amount` of `asset` for an open order (positive) or releases it (negative). */
export function applyLock(b: Balances, asset: LockAsset, amount: Decimal): Balances {
  if (asset === 'USDT') return { ...b, cashLocked: b.cashLocked.plus(amount) };
  const p = b.positions[asset] ?? flatPosition(asset);
  return { ...b, positions: { ...b.positions, [asset]: { ...p, locked: p.locked.plus(amount) } } };
}
