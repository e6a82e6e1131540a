/**
 * Which orders or fills `allOrders` and `myTrades` answer (docs/exchange-api.md#binance-orders):
 * those with an integer id at or above a starting id (docs/orders.md#ids), within a time window, at
 * most `limit` of them: the oldest from a starting point when one is given, the newest otherwise,
 * oldest first either way, as Binance pages them.
 */

/** What a history read asks. */
export interface PageQuery {
  /** from this id on (`orderId` of allOrders, `fromId` of myTrades): the items with an id >= it */
  fromId?: number | undefined;
  startTime?: number | undefined;
  endTime?: number | undefined;
  limit: number;
}

/** The page of `items` (oldest first, so by increasing id) that `q` asks for. */
export function historyPage<T>(items: readonly T[], idOf: (t: T) => number, timeOf: (t: T) => number, q: PageQuery): T[] {
  let from = 0;
  if (q.fromId !== undefined) {
    const fromId = q.fromId;
    from = items.findIndex((t) => idOf(t) >= fromId);
    if (from < 0) return [];
  }
  const within = items
    .slice(from)
    .filter((t) => (q.startTime === undefined || timeOf(t) >= q.startTime) && (q.endTime === undefined || timeOf(t) <= q.endTime));
  const fromStart = q.fromId !== undefined || q.startTime !== undefined;
  return fromStart ? within.slice(0, q.limit) : within.slice(Math.max(0, within.length - q.limit));
}
