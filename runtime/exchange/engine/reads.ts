/**
 * Reads of the order engine (docs/orders.md#reads): one order, open orders, all orders, fills and
 * balances of an account, from the store (the truth, also for orders another process holds).
 */
import { ok, refuse } from '../../../kernel/refusal.ts';
import type { BookSymbol } from '../../../kernel/domain.ts';
import type { TradeRecord } from '../../../adapters/store/exchange/port.ts';
import { isOpen, restoreEngineOrder, type EngineOrderSnapshot } from '../../../machines/engine-order.ts';
import type { ExchangeContext } from '../context.ts';
import { refText } from './cancel.ts';
import type { BalanceView, EngineResult, OrderRef, OrderView } from './types.ts';
import { balanceViews, orderView } from './views.ts';

const missing = (accountId: string) => refuse('ACCOUNT_NOT_FOUND' as const, `account ${accountId} does not exist`);

/** Every order of the account (oldest first), or null when the account does not exist. */
async function ordersOf(ctx: ExchangeContext, accountId: string): Promise<EngineOrderSnapshot[] | null> {
  const [loaded, states] = await Promise.all([ctx.store.load(accountId), ctx.store.engineOrders(accountId)]);
  return loaded ? states.map(restoreEngineOrder) : null;
}

/** One order of the account on `symbol`. */
export async function readOrder(ctx: ExchangeContext, accountId: string, symbol: BookSymbol, ref: OrderRef): Promise<EngineResult<OrderView>> {
  const [loaded, stored] = await Promise.all([ctx.store.load(accountId), ctx.store.engineOrder(accountId, ref)]);
  if (!loaded) return missing(accountId);
  const order = stored === null ? null : restoreEngineOrder(stored);
  if (!order || order.context.symbol !== symbol) return refuse('UNKNOWN_ORDER', `${refText(ref)} is not an order of this account on ${symbol}`);
  return ok(orderView(order));
}

/** Open orders of the account, on one symbol or all, oldest first (from the store's open-order index, not the whole history). */
export async function readOpenOrders(ctx: ExchangeContext, accountId: string, symbol?: BookSymbol): Promise<EngineResult<OrderView[]>> {
  const [loaded, open] = await Promise.all([ctx.store.load(accountId), ctx.store.openEngineOrders(accountId)]);
  if (!loaded) return missing(accountId);
  const orders = open.map((o) => restoreEngineOrder(o.state)).filter((o) => isOpen(o) && (symbol === undefined || o.context.symbol === symbol));
  orders.sort((a, b) => a.context.createdAt - b.context.createdAt || a.context.orderId.localeCompare(b.context.orderId));
  return ok(orders.map(orderView));
}

/** Every order of the account on `symbol`, oldest first. */
export async function readAllOrders(ctx: ExchangeContext, accountId: string, symbol: BookSymbol): Promise<EngineResult<OrderView[]>> {
  const orders = await ordersOf(ctx, accountId);
  if (!orders) return missing(accountId);
  return ok(orders.filter((o) => o.context.symbol === symbol).map(orderView));
}

/** The account's fills on `symbol`, oldest first. */
export async function readTrades(ctx: ExchangeContext, accountId: string, symbol: BookSymbol): Promise<EngineResult<TradeRecord[]>> {
  const [loaded, trades] = await Promise.all([ctx.store.load(accountId), ctx.store.trades(accountId)]);
  if (!loaded) return missing(accountId);
  return ok(trades.filter((t) => t.symbol === symbol));
}

/** Free and locked balances of the account. */
export async function readBalances(ctx: ExchangeContext, accountId: string): Promise<EngineResult<BalanceView[]>> {
  const loaded = await ctx.store.load(accountId);
  if (!loaded) return missing(accountId);
  return ok(balanceViews(loaded.bundle.balances));
}
