/**
 * Reads of the order engine (docs/orders.md#reads): one order, open orders, all orders, fills and
 * balances of an account, from the store (the truth, also for orders another process holds), with
 * their integer ids (docs/orders.md#ids).
 */
import { ok, refuse } from '../../../kernel/refusal.ts';
import type { BookSymbol } from '../../../kernel/domain.ts';
import { isOpen, restoreEngineOrder } from '../../../machines/engine-order.ts';
import type { ExchangeContext } from '../context.ts';
import { refText } from './cancel.ts';
import { numberedTrades, orderNumberOf, orderNumbersOf } from './ids.ts';
import type { BalanceView, EngineResult, NumberedTrade, OrderReadRef, OrderView } from './types.ts';
import { balanceViews, orderView } from './views.ts';

const missing = (accountId: string) => refuse('ACCOUNT_NOT_FOUND' as const, `account ${accountId} does not exist`);

/** One order of the account on `symbol`. */
export async function readOrder(ctx: ExchangeContext, accountId: string, symbol: BookSymbol, ref: OrderReadRef): Promise<EngineResult<OrderView>> {
  const [loaded, stored] = await Promise.all([ctx.store.load(accountId), ctx.store.engineOrder(accountId, ref)]);
  if (!loaded) return missing(accountId);
  const order = stored === null ? null : restoreEngineOrder(stored);
  if (!order || order.context.symbol !== symbol) return refuse('UNKNOWN_ORDER', `${refText(ref)} is not an order of this account on ${symbol}`);
  return ok(orderView(order, 'number' in ref ? ref.number : await orderNumberOf(ctx.store, accountId, order)));
}

/** Open orders of the account, on one symbol or all, oldest first (from the store's open-order index, not the whole history). */
export async function readOpenOrders(ctx: ExchangeContext, accountId: string, symbol?: BookSymbol): Promise<EngineResult<OrderView[]>> {
  const [loaded, open] = await Promise.all([ctx.store.load(accountId), ctx.store.openEngineOrders(accountId)]);
  if (!loaded) return missing(accountId);
  const orders = open.map((o) => restoreEngineOrder(o.state)).filter((o) => isOpen(o) && (symbol === undefined || o.context.symbol === symbol));
  const numbers = await orderNumbersOf(ctx.store, accountId, orders);
  const views = orders.map((o, i) => orderView(o, numbers[i] ?? 0));
  views.sort((a, b) => a.number - b.number);
  return ok(views);
}

/** Every order of the account on `symbol`, oldest first: the n-th of the account's orders has the integer id n. */
export async function readAllOrders(ctx: ExchangeContext, accountId: string, symbol: BookSymbol): Promise<EngineResult<OrderView[]>> {
  const [loaded, states] = await Promise.all([ctx.store.load(accountId), ctx.store.engineOrders(accountId)]);
  if (!loaded) return missing(accountId);
  const views: OrderView[] = [];
  states.forEach((state, i) => {
    const order = restoreEngineOrder(state);
    if (order.context.symbol === symbol) views.push(orderView(order, i + 1));
  });
  return ok(views);
}

/** The account's fills on `symbol`, oldest first, with their integer ids and their orders'. */
export async function readTrades(ctx: ExchangeContext, accountId: string, symbol: BookSymbol): Promise<EngineResult<NumberedTrade[]>> {
  const [loaded, trades] = await Promise.all([ctx.store.load(accountId), ctx.store.trades(accountId)]);
  if (!loaded) return missing(accountId);
  return ok((await numberedTrades(ctx.store, accountId, trades)).filter((t) => t.symbol === symbol));
}

/** Free and locked balances of the account. */
export async function readBalances(ctx: ExchangeContext, accountId: string): Promise<EngineResult<BalanceView[]>> {
  const loaded = await ctx.store.load(accountId);
  if (!loaded) return missing(accountId);
  return ok(balanceViews(loaded.bundle.balances));
}
