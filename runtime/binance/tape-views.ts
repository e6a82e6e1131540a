/**
 * The trade tape as Binance answers it (docs/exchange-api.md#binance-trades): trades, aggregate
 * trades (one per trade: an order here takes one fill per price level, so Binance's aggregation of
 * one taker order's fills at one price never joins two) and the 5-minute average price.
 */
import type { TapeTrade } from '../../adapters/store/tape/port.ts';
import { dec, fmt, sum } from '../../machines/exchange/money.ts';

/** A trade of `trades` and `historicalTrades`. */
export const tradeView = (t: TapeTrade) => ({
  id: t.id,
  price: t.price,
  qty: t.qty,
  quoteQty: t.quoteQty,
  time: t.time,
  isBuyerMaker: t.isBuyerMaker,
  isBestMatch: true,
});

/** An aggregate trade of `aggTrades`: `a` is the trade's id, `f` = `l` the one trade it holds. */
export const aggTradeView = (t: TapeTrade) => ({ a: t.id, p: t.price, q: t.qty, f: t.id, l: t.id, T: t.time, m: t.isBuyerMaker, M: true });

/** What `aggTrades` asks of the tape. */
export interface AggTradesQuery {
  startTime?: number | undefined;
  endTime?: number | undefined;
  limit: number;
}

/**
 * The trades of `held` (oldest first) within `[startTime, endTime]`: with `startTime` the oldest
 * `limit` from there, else the newest `limit` up to `endTime`.
 */
export function tradesBetween(held: readonly TapeTrade[], q: AggTradesQuery): TapeTrade[] {
  const inside = held.filter((t) => (q.startTime === undefined || t.time >= q.startTime) && (q.endTime === undefined || t.time <= q.endTime));
  return q.startTime === undefined ? inside.slice(-q.limit) : inside.slice(0, q.limit);
}

/** Minutes `avgPrice` averages over. */
export const AVG_PRICE_MINUTES = 5;

/** The volume-weighted price of the trades of `held` in the last 5 minutes, with the last one's time; null when none. */
export function averagePrice(held: readonly TapeTrade[], now: number): { price: string; closeTime: number } | null {
  const recent = held.filter((t) => t.time > now - AVG_PRICE_MINUTES * 60_000);
  const volume = sum(recent.map((t) => dec(t.qty)));
  const last = recent[recent.length - 1];
  if (!last || volume.isZero()) return null;
  return { price: fmt(sum(recent.map((t) => dec(t.quoteQty))).div(volume), 8), closeTime: Math.max(...recent.map((t) => t.time)) };
}
