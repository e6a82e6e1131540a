/**
 * New orders per account, as Binance counts them for `X-MBX-ORDER-COUNT-10S` and
 * `X-MBX-ORDER-COUNT-1D` (docs/exchange-api.md#binance-limits): fixed 10-second and UTC-day
 * windows, kept in memory by each exchange process. Past a limit an order is refused (-1015).
 */

/** Binance's ORDERS limits, as exchangeInfo announces them. */
export const ORDER_LIMITS = [
  { interval: 'SECOND', intervalNum: 10, ms: 10_000, limit: 100, header: 'X-MBX-ORDER-COUNT-10S' },
  { interval: 'DAY', intervalNum: 1, ms: 86_400_000, limit: 200_000, header: 'X-MBX-ORDER-COUNT-1D' },
] as const;

/** What one new order did to its account's counts. */
export interface OrderCountUse {
  /** the headers to answer with: the counts, this order included */
  headers: [string, string][];
  /** the limit it went past, or null */
  over: { limit: number; intervalNum: number; interval: string } | null;
}

/** Fixed windows per account. */
export class OrderCounts {
  private readonly windows = ORDER_LIMITS.map(() => ({ start: -1, counts: new Map<string, number>() }));

  constructor(private readonly now: () => number = Date.now) {}

  /** Counts one new order of `accountId`. */
  count(accountId: string): OrderCountUse {
    const t = this.now();
    const headers: [string, string][] = [];
    let over: OrderCountUse['over'] = null;
    ORDER_LIMITS.forEach((l, i) => {
      const w = this.windows[i]!;
      const start = Math.floor(t / l.ms);
      if (start !== w.start) {
        w.start = start;
        w.counts = new Map();
      }
      const n = (w.counts.get(accountId) ?? 0) + 1;
      w.counts.set(accountId, n);
      headers.push([l.header, String(n)]);
      if (n > l.limit && !over) over = { limit: l.limit, intervalNum: l.intervalNum, interval: l.interval };
    });
    return { headers, over };
  }
}
