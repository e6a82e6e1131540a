/**
 * The integer ids of an account's orders and fills (docs/orders.md#ids): an order's is its place
 * among the account's engine orders (1, 2, ... in placing order), given when it is placed and kept
 * in its record; a fill's is its place among the account's fills, kept in its record too with its
 * order's. The stores keep both lists append-only, so a place never changes. An order or fill
 * written before these ids has none in its record: its place is read from the store (the same
 * number, found the long way).
 */
import type { ExchangeStore, TradeRecord } from '../../../adapters/store/exchange/port.ts';
import type { EngineOrderSnapshot } from '../../../machines/engine-order.ts';
import type { NumberedTrade } from './types.ts';

/** The ids of the account's engine orders, each at its integer id - 1. */
async function placesOf(store: ExchangeStore, accountId: string): Promise<Map<string, number>> {
  const states = await store.engineOrders(accountId);
  const places = new Map<string, number>();
  states.forEach((s, i) => {
    const id = (s as { context?: { orderId?: unknown } } | null)?.context?.orderId;
    if (typeof id === 'string') places.set(id, i + 1);
  });
  return places;
}

/** The integer ids of `orders` of the account, in their order (one store read only when one of them predates the ids). */
export async function orderNumbersOf(store: ExchangeStore, accountId: string, orders: readonly EngineOrderSnapshot[]): Promise<number[]> {
  if (orders.every((o) => o.context.number !== undefined)) return orders.map((o) => o.context.number ?? 0);
  const places = await placesOf(store, accountId);
  return orders.map((o) => o.context.number ?? places.get(o.context.orderId) ?? 0);
}

/** The integer id of one order of the account. */
export async function orderNumberOf(store: ExchangeStore, accountId: string, order: EngineOrderSnapshot): Promise<number> {
  return (await orderNumbersOf(store, accountId, [order]))[0] ?? 0;
}

/** Every fill of the account (oldest first, as the store lists them) with its integer id and its order's. */
export async function numberedTrades(store: ExchangeStore, accountId: string, trades: readonly TradeRecord[]): Promise<NumberedTrade[]> {
  const places = trades.every((t) => t.orderNumber !== undefined) ? new Map<string, number>() : await placesOf(store, accountId);
  return trades.map((t, i) => ({ ...t, number: t.number ?? i + 1, orderNumber: t.orderNumber ?? places.get(t.orderId) ?? 0 }));
}
