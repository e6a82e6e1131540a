/**
 * Wire views of ledger state: every number a decimal string with 10 fraction digits
 * (docs/exchange-api.md#conventions, docs/decisions.md#money). Prices in the price object keep 8 digits.
 */
import type { BookSnapshot } from '../../adapters/feed/port.ts';
import type { AccountRecord, EquityPoint } from '../../adapters/store/exchange/port.ts';
import { avgCost, type Balances, type PositionState } from '../../machines/exchange/ledger.ts';
import { dec, fmt, fmtPrice } from '../../machines/exchange/money.ts';
import type { EquityTotals, Totals } from './valuation.ts';

/** The account (docs/exchange-api.md#open). */
export const accountView = (a: AccountRecord, b: Balances) => ({
  id: a.id,
  name: a.name,
  baseCurrency: a.baseCurrency,
  initialCash: fmt(a.initialCash),
  cash: fmt(b.cash),
  feeRate: fmt(a.feeRate),
  createdAt: a.createdAt,
});

/** An account with totals (docs/exchange-api.md#read-list-delete). */
export const accountTotalsView = (a: AccountRecord, b: Balances, t: Totals) => ({
  id: a.id,
  name: a.name,
  cash: fmt(b.cash),
  positionsValue: fmt(t.positionsValue),
  equity: fmt(t.equity),
  netDeposits: fmt(t.netDeposits),
  pnl: fmt(t.pnl),
  pnlPct: fmt(t.pnlPct),
  realizedPnl: fmt(t.realizedPnl),
  unrealizedPnl: fmt(t.unrealizedPnl),
});

/** GET /accounts/{id}/pnl (docs/exchange-api.md#totals-and-pnl). */
export const pnlView = (a: AccountRecord, t: Totals) => ({
  initialCash: fmt(a.initialCash),
  netDeposits: fmt(t.netDeposits),
  equity: fmt(t.equity),
  pnl: fmt(t.pnl),
  pnlPct: fmt(t.pnlPct),
  realizedPnl: fmt(t.realizedPnl),
  unrealizedPnl: fmt(t.unrealizedPnl),
});

/** A position (docs/exchange-api.md#positions). */
export const positionView = (p: PositionState) => ({
  symbol: p.symbol,
  qty: fmt(p.qty),
  avgCost: fmt(avgCost(p)),
  realizedPnl: fmt(p.realizedPnl),
});

/** An equity point (docs/exchange-api.md#equity-curve). */
export const equityPointOf = (ts: Date, b: Balances, t: EquityTotals): EquityPoint => ({
  ts: ts.toISOString(),
  cash: fmt(b.cash),
  positionsValue: fmt(t.positionsValue),
  equity: fmt(t.equity),
  realizedPnl: fmt(t.realizedPnl),
  unrealizedPnl: fmt(t.unrealizedPnl),
});

/** The price object (docs/exchange-api.md#prices): best bid and best ask of a book (the cache holds only two-sided books). */
export const priceView = (b: BookSnapshot) => ({
  symbol: b.symbol,
  bid: fmtPrice(dec(b.bids[0]?.[0] ?? '0')),
  ask: fmtPrice(dec(b.asks[0]?.[0] ?? '0')),
  ts: new Date(b.ts).toISOString(),
});
