/**
 * Klines from the books the exchange takes (docs/exchange-api.md#binance-klines): each book's mid
 * price ((best bid + best ask) / 2) goes into its symbol's one-minute candle; a minute's candle is
 * stored when the next minute begins, and the open one at most every `flushMs` (so a restart loses
 * at most that much of it). The venue's trades (the tape, docs/exchange-api.md#binance-trades) add
 * their volume and count to the candle of their minute (`addTrade`). Longer intervals are folded
 * from one-minute candles.
 */
import type { BookSnapshot } from '../../adapters/feed/port.ts';
import type { Candle, CandleStore, CandleTrades } from '../../adapters/store/candles/port.ts';
import type { TapeTrade } from '../../adapters/store/tape/port.ts';
import { dec, fmt } from '../../machines/exchange/money.ts';
import type { Logger } from '../../kernel/log.ts';
import type { BookSymbol } from '../../kernel/domain.ts';

const MINUTE = 60_000;

/** Kline intervals served, with their length (docs/exchange-api.md#binance-klines). */
export const KLINE_INTERVALS = {
  '1m': MINUTE,
  '3m': 3 * MINUTE,
  '5m': 5 * MINUTE,
  '15m': 15 * MINUTE,
  '30m': 30 * MINUTE,
  '1h': 60 * MINUTE,
  '2h': 120 * MINUTE,
  '4h': 240 * MINUTE,
  '6h': 360 * MINUTE,
  '8h': 480 * MINUTE,
  '12h': 720 * MINUTE,
  '1d': 1440 * MINUTE,
} as const;
/** A served interval name. */
export type KlineInterval = keyof typeof KLINE_INTERVALS;

/** Whether `name` is a served interval. */
export const isKlineInterval = (name: string): name is KlineInterval => Object.hasOwn(KLINE_INTERVALS, name);

/** What a kline query asks. */
export interface KlineQuery {
  symbol: BookSymbol;
  interval: KlineInterval;
  startTime?: number;
  endTime?: number;
  limit: number;
  /** `timeZone`'s offset from UTC in ms: intervals are cut in that zone (startTime and endTime stay UTC) [0] */
  offsetMs?: number;
}

/** A folded candle of any interval. */
export interface Kline extends Candle {
  closeTime: number;
}

const mid = (b: BookSnapshot): string =>
  fmt(
    dec(b.bids[0]?.[0] ?? '0')
      .plus(dec(b.asks[0]?.[0] ?? '0'))
      .div(2),
    8,
  );
const max = (a: string, b: string) => (dec(a).gte(dec(b)) ? a : b);
const plus = (a: string, b: string) => fmt(dec(a).plus(dec(b)), 8);

/** The trades of two candles together (`a` the older). */
export function mergeTrades(a: CandleTrades | undefined, b: CandleTrades | undefined): CandleTrades | undefined {
  if (!a || !b) return a ?? b;
  return {
    volume: plus(a.volume, b.volume),
    quoteVolume: plus(a.quoteVolume, b.quoteVolume),
    count: a.count + b.count,
    takerBuyVolume: plus(a.takerBuyVolume, b.takerBuyVolume),
    takerBuyQuoteVolume: plus(a.takerBuyQuoteVolume, b.takerBuyQuoteVolume),
    firstId: Math.min(a.firstId, b.firstId),
    lastId: Math.max(a.lastId, b.lastId),
  };
}

/** One trade as candle trades. */
const tradesOf = (t: TapeTrade): CandleTrades => ({
  volume: t.qty,
  quoteVolume: t.quoteQty,
  count: 1,
  takerBuyVolume: t.isBuyerMaker ? '0.00000000' : t.qty,
  takerBuyQuoteVolume: t.isBuyerMaker ? '0.00000000' : t.quoteQty,
  firstId: t.id,
  lastId: t.id,
});
const min = (a: string, b: string) => (dec(a).lte(dec(b)) ? a : b);

/** Records candles from books and answers kline queries. */
export class CandleRecorder {
  private readonly open = new Map<BookSymbol, { candle: Candle; savedAt: number }>();
  /** the candle stored last when its minute closed: a trade told late still lands in it */
  private readonly closed = new Map<BookSymbol, Candle>();

  constructor(
    private readonly store: CandleStore,
    private readonly log: Logger,
    private readonly flushMs = 5_000,
  ) {}

  /** Takes one book (already accepted by the book sequence). */
  add(book: BookSnapshot): void {
    const price = mid(book);
    const minute = Math.floor(book.ts / MINUTE) * MINUTE;
    const held = this.open.get(book.symbol);
    if (held && held.candle.openTime > minute) return; // a late book of a minute already closed
    if (held && held.candle.openTime === minute) {
      const c = held.candle;
      Object.assign(c, { high: max(c.high, price), low: min(c.low, price), close: price, books: c.books + 1 });
      if (book.ts - held.savedAt >= this.flushMs) this.save(book.symbol, c, book.ts);
      return;
    }
    if (held) this.close(book.symbol, held.candle, book.ts);
    this.open.set(book.symbol, { candle: { openTime: minute, open: price, high: price, low: price, close: price, books: 1 }, savedAt: book.ts });
  }

  /**
   * Takes one trade of the tape: its volume goes into its minute's candle. A minute no book opened
   * yet opens at the last close (or the trade's price); a trade of the minute closed just before is
   * added to it and it is stored again; an older one is not counted.
   */
  addTrade(trade: TapeTrade): void {
    const minute = Math.floor(trade.time / MINUTE) * MINUTE;
    const held = this.open.get(trade.symbol);
    if (held && held.candle.openTime === minute) {
      held.candle.trades = mergeTrades(held.candle.trades, tradesOf(trade));
      if (trade.time - held.savedAt >= this.flushMs) this.save(trade.symbol, held.candle, trade.time);
      return;
    }
    if (!held || held.candle.openTime < minute) {
      const price = held?.candle.close ?? trade.price;
      if (held) this.close(trade.symbol, held.candle, trade.time);
      const candle: Candle = { openTime: minute, open: price, high: price, low: price, close: price, books: 0, trades: tradesOf(trade) };
      this.open.set(trade.symbol, { candle, savedAt: trade.time });
      return;
    }
    const last = this.closed.get(trade.symbol);
    if (last?.openTime !== minute) {
      this.log.debug({ symbol: trade.symbol, id: trade.id }, 'a trade of a minute closed long ago is not counted in klines');
      return;
    }
    last.trades = mergeTrades(last.trades, tradesOf(trade));
    void this.store.put(trade.symbol, { ...last }).catch((err: unknown) => this.log.warn({ err, symbol: trade.symbol }, 'a candle was not stored again'));
  }

  private close(symbol: BookSymbol, candle: Candle, at: number): void {
    this.save(symbol, candle, at);
    this.closed.set(symbol, candle);
  }

  private save(symbol: BookSymbol, candle: Candle, at: number): void {
    const held = this.open.get(symbol);
    if (held) held.savedAt = at;
    void this.store
      .put(symbol, { ...candle })
      .catch((err: unknown) => this.log.warn({ err, symbol }, 'a candle was not stored; klines lack that minute until the next write'));
  }

  /**
   * Klines oldest first: from `startTime` on, the first `limit` up to `endTime`; without it, the
   * newest `limit` that exist up to `endTime` (or now). Minutes without a book have no candle.
   */
  async klines(q: KlineQuery, now: number): Promise<Kline[]> {
    const size = KLINE_INTERVALS[q.interval];
    const perKline = size / MINUTE;
    const to = q.endTime ?? now;
    const offset = q.offsetMs ?? 0;
    const from = q.startTime === undefined ? 0 : startOf(q.startTime, size, offset);
    const want = (q.limit + 1) * perKline;
    const minutes = await this.store.range(q.symbol, from, to, want, q.startTime === undefined);
    // without startTime the oldest fetched minute may sit mid-interval: its kline is dropped below
    const cut = q.startTime === undefined && minutes.length === want;
    const current = this.open.get(q.symbol)?.candle;
    if (current && current.openTime >= from && current.openTime <= to) {
      const i = minutes.findIndex((c) => c.openTime === current.openTime);
      if (i >= 0) minutes[i] = { ...current };
      else if (!minutes.some((c) => c.openTime > current.openTime)) minutes.push({ ...current });
    }
    const folded = fold(minutes, size, offset).slice(cut ? 1 : 0);
    return q.startTime === undefined ? folded.slice(-q.limit) : folded.slice(0, q.limit);
  }
}

/** The open time of the interval of `size` ms that holds `t`, intervals cut `offset` ms from UTC. */
const startOf = (t: number, size: number, offset: number): number => Math.floor((t + offset) / size) * size - offset;

/** Folds one-minute candles (oldest first) into candles of `size` ms, cut in the zone `offset` ms from UTC [0]. */
export function fold(minutes: Candle[], size: number, offset = 0): Kline[] {
  const out: Kline[] = [];
  for (const c of minutes) {
    const openTime = startOf(c.openTime, size, offset);
    const last = out[out.length - 1];
    if (last && last.openTime === openTime) {
      const trades = mergeTrades(last.trades, c.trades);
      Object.assign(last, { high: max(last.high, c.high), low: min(last.low, c.low), close: c.close, books: last.books + c.books }, trades ? { trades } : {});
    } else out.push({ ...c, openTime, closeTime: openTime + size - 1 });
  }
  return out;
}

const TIME_ZONE = /^([+-]?)(\d{1,2})(?::(\d{2}))?$/;

/**
 * The offset in ms of a klines `timeZone` as Binance takes it: hours (`8`, `-1`) or hours and
 * minutes (`05:45`, `-1:00`), from -12:00 to +14:00; undefined for anything else.
 */
export function timeZoneOffsetMs(text: string): number | undefined {
  const m = TIME_ZONE.exec(text);
  if (!m) return undefined;
  const [hours, minutes] = [Number(m[2]), Number(m[3] ?? '0')];
  if (minutes > 59) return undefined;
  const total = (m[1] === '-' ? -1 : 1) * (hours * 60 + minutes);
  if (total < -12 * 60 || total > 14 * 60) return undefined;
  return total * MINUTE;
}
