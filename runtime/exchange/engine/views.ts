/**
 * What the order engine answers and announces (docs/orders.md#events): an order's view from its
 * machine snapshot, free and locked balances, and the `order` / `balance` events published after a
 * commit.
 */
import { freeCash, freeQty, type Balances } from '../../../machines/exchange/ledger.ts';
import { dec, fmt, ZERO } from '../../../machines/exchange/money.ts';
import { statusOf, type EngineOrderSnapshot } from '../../../machines/engine-order.ts';
import { BOOK_SYMBOLS } from '../../../kernel/domain.ts';
import type { ExchangeEvent } from '../events.ts';
import { baseAssetOf, type BalanceView, type EventIds, type OrderView } from './types.ts';

const money = (s: string): string => fmt(dec(s));

/** The view of an order whose integer id is `number` (docs/orders.md#ids). */
export function orderView(s: EngineOrderSnapshot, number: number): OrderView {
  const c = s.context;
  return {
    orderId: c.orderId,
    number,
    clientOrderId: c.clientOrderId,
    accountId: c.accountId,
    symbol: c.symbol,
    side: c.side,
    type: c.type,
    timeInForce: c.timeInForce,
    status: statusOf(s),
    price: c.price === null ? null : money(c.price),
    origQty: money(c.origQty),
    quoteOrderQty: c.quoteOrderQty === null ? null : money(c.quoteOrderQty),
    executedQty: money(c.executedQty),
    cumulativeQuoteQty: money(c.cumQuote),
    commission: money(c.commission),
    locked: money(c.locked),
    time: c.createdAt,
    updateTime: c.updatedAt,
    lastFill: c.lastFill,
  };
}

/** Free and locked balances of USDT and of every base asset the account holds or held. */
export function balanceViews(b: Balances): BalanceView[] {
  const out: BalanceView[] = [{ asset: 'USDT', free: fmt(freeCash(b)), locked: fmt(b.cashLocked) }];
  for (const symbol of BOOK_SYMBOLS) {
    const p = b.positions[symbol];
    if (p) out.push({ asset: baseAssetOf(symbol), free: fmt(freeQty(b, symbol)), locked: fmt(p.locked ?? ZERO) });
  }
  return out;
}

/** An event the engine announces, with the integer ids it is about when it is an order event (`core.ts`). */
export interface Announced {
  event: ExchangeEvent;
  ids: EventIds | null;
}

/** The `order` event of a snapshot (`execution`: what just happened to it), with its integer ids (`ids.trade`: the fill's, -1 unless a TRADE). */
export function orderEvent(s: EngineOrderSnapshot, execution: 'NEW' | 'TRADE' | 'CANCELED' | 'EXPIRED', time: number, ids: EventIds): Announced {
  return { event: orderEventOf(s, execution, time, ids.order), ids };
}

function orderEventOf(s: EngineOrderSnapshot, execution: 'NEW' | 'TRADE' | 'CANCELED' | 'EXPIRED', time: number, number: number): ExchangeEvent {
  const v = orderView(s, number);
  const status = v.status === 'REJECTED' ? 'EXPIRED' : v.status;
  return {
    kind: 'order',
    accountId: v.accountId,
    execution,
    orderId: v.orderId,
    clientOrderId: v.clientOrderId,
    symbol: v.symbol,
    side: v.side,
    type: v.type,
    timeInForce: v.timeInForce,
    status,
    price: v.price,
    origQty: v.origQty,
    quoteOrderQty: v.quoteOrderQty,
    executedQty: v.executedQty,
    cumulativeQuoteQty: v.cumulativeQuoteQty,
    commission: v.commission,
    lastFill: execution === 'TRADE' && s.context.lastFill ? { ...s.context.lastFill, commissionAsset: 'USDT' } : null,
    createdAt: v.time,
    time,
  };
}

/** The `balance` event after a change. */
export const balanceEvent = (accountId: string, b: Balances, time: number): Announced => ({
  event: { kind: 'balance', accountId, time, balances: balanceViews(b) },
  ids: null,
});
