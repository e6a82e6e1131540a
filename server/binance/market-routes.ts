/**
 * Binance's public market data under /api/v3 (docs/exchange-api.md#binance-market-data): ping,
 * time, exchangeInfo, depth, ticker/price, ticker/bookTicker, ticker/24hr and klines, from the
 * exchange's numbered books and candles, with Binance's weights. A symbol whose book is older
 * than the staleness cut-off is never quoted: a single-symbol read answers 503 -1001, a read of
 * several leaves it out.
 */
import type { BookSnapshot } from '../../adapters/feed/port.ts';
import { BOOK_SYMBOLS, type BookSymbol } from '../../kernel/domain.ts';
import { dec, fmt } from '../../machines/exchange/money.ts';
import { fmt8, type SequencedBook } from '../../runtime/binance/book-sequence.ts';
import { isKlineInterval, mergeTrades, timeZoneOffsetMs, type Kline } from '../../runtime/binance/candles.ts';
import type { TapeTrade } from '../../adapters/store/tape/port.ts';
import type { BinanceContext } from '../../runtime/binance/context.ts';
import { ORDER_LIMITS } from '../../runtime/binance/order-counts.ts';
import { exchangeInfoSymbol, SYMBOL_RULES } from '../../runtime/binance/symbols.ts';
import type { Router } from '../http/router.ts';
import { binance } from './errors.ts';
import type { BinanceParams } from './params.ts';
import { binanceRoute } from './route.ts';

const V3 = '/api/v3';
/** The request weight limit per minute and the order limits, as exchangeInfo announces them. */
const rateLimits = (limit: number) => [
  { rateLimitType: 'REQUEST_WEIGHT', interval: 'MINUTE', intervalNum: 1, limit },
  ...ORDER_LIMITS.map((l) => ({ rateLimitType: 'ORDERS', interval: l.interval, intervalNum: l.intervalNum, limit: l.limit })),
];

/** Weight of depth by limit (Binance's table). */
export const depthWeight = (limit: number): number => (limit <= 100 ? 5 : limit <= 500 ? 25 : limit <= 1000 ? 50 : 250);
/** Weight of ticker/24hr by the symbols asked (null: all). */
export const ticker24hWeight = (symbols: readonly unknown[] | null): number =>
  symbols === null ? 80 : symbols.length <= 20 ? 2 : symbols.length <= 100 ? 40 : 80;
/** Weight of ticker/price and ticker/bookTicker: 2 for one symbol, 4 for several or all. */
const tickerWeight = (p: BinanceParams): number => (p.raw('symbol') !== undefined ? 2 : 4);

/** Mounts the market data routes. */
export function mountBinanceMarketRoutes(router: Router, ctx: BinanceContext): void {
  const route = (path: string, spec: Parameters<typeof binanceRoute>[4], handler: Parameters<typeof binanceRoute>[5]) =>
    binanceRoute(router, ctx, 'GET', `${V3}${path}`, spec, handler);

  /** The fresh numbered book of `symbol`, or undefined. */
  const fresh = (symbol: BookSymbol): SequencedBook | undefined => {
    const numbered = ctx.books.of(symbol);
    return numbered && ctx.exchange.books.isFresh(numbered.book) ? numbered : undefined;
  };
  const freshOrRefuse = (symbol: BookSymbol): SequencedBook => {
    const numbered = fresh(symbol);
    if (!numbered) throw binance.disconnected();
    return numbered;
  };
  /** One symbol (an object) or several (an array), as Binance shapes ticker answers. */
  const perSymbol = async <T>(p: BinanceParams, view: (b: SequencedBook) => T | Promise<T>): Promise<T | T[]> => {
    const asked = p.symbols();
    // every symbol here is TRADING: another status matches none (one symbol asked: -1220)
    const status = p.symbolStatus() ?? 'TRADING';
    if (asked !== null && p.raw('symbol') !== undefined) {
      if (status !== 'TRADING') throw binance.statusMismatch();
      return view(freshOrRefuse(asked[0] as BookSymbol));
    }
    if (status !== 'TRADING') return [];
    const out: T[] = [];
    for (const s of asked ?? BOOK_SYMBOLS) {
      const numbered = fresh(s);
      if (numbered) out.push(await view(numbered));
    }
    return out;
  };

  route('/ping', { weight: 1, params: [] }, () => ({}));
  route('/time', { weight: 1, params: [] }, (_p, _s, now) => ({ serverTime: now }));

  route('/exchangeInfo', { weight: 20, params: ['symbol', 'symbols', 'permissions', 'showPermissionSets', 'symbolStatus'] }, (p, _s, now) => {
    const status = p.symbolStatus();
    const symbols = (p.symbols() ?? BOOK_SYMBOLS).filter(() => status === undefined || status === 'TRADING');
    return {
      timezone: 'UTC',
      serverTime: now,
      rateLimits: rateLimits(ctx.weights.limit),
      exchangeFilters: [],
      symbols: symbols.map((s) => exchangeInfoSymbol(SYMBOL_RULES[s])),
    };
  });

  route('/depth', { weight: (p) => depthWeight(Math.min(p.integer('limit') ?? 100, 5000)), params: ['symbol', 'limit', 'symbolStatus'] }, (p) => {
    const symbol = p.symbol();
    const limit = p.integer('limit') ?? 100;
    if (limit < 1) throw binance.invalidParam('limit');
    if ((p.symbolStatus() ?? 'TRADING') !== 'TRADING') throw binance.statusMismatch();
    const { wire, id } = freshOrRefuse(symbol);
    return { lastUpdateId: id, bids: wire.bids.slice(0, limit), asks: wire.asks.slice(0, limit) };
  });

  route('/ticker/price', { weight: tickerWeight, params: ['symbol', 'symbols', 'symbolStatus'] }, (p) =>
    perSymbol(p, ({ book }) => ({ symbol: book.symbol, price: midOf(book) })),
  );

  route('/ticker/bookTicker', { weight: tickerWeight, params: ['symbol', 'symbols', 'symbolStatus'] }, (p) => perSymbol(p, ({ book }) => bookTickerOf(book)));

  route(
    '/ticker/24hr',
    {
      weight: (p) => ticker24hWeight(p.raw('symbol') !== undefined ? [p.raw('symbol')] : p.symbols()),
      fallbackWeight: 2,
      params: ['symbol', 'symbols', 'type', 'symbolStatus'],
    },
    (p, _s, now) => {
      const type = p.raw('type') ?? 'FULL';
      if (type !== 'FULL' && type !== 'MINI') throw binance.badTickerType();
      return perSymbol(p, async ({ book }) => ticker24h(book, await dayOf(ctx, book.symbol, now), now, type));
    },
  );

  route('/klines', { weight: 2, params: ['symbol', 'interval', 'startTime', 'endTime', 'limit', 'timeZone'] }, async (p, _s, now) => {
    const symbol = p.symbol();
    const interval = p.required('interval');
    if (!isKlineInterval(interval)) throw binance.badInterval();
    const limit = p.integer('limit') ?? 500;
    if (limit < 1 || limit > 1000) throw binance.invalidParam('limit');
    const startTime = p.integer('startTime');
    const endTime = p.integer('endTime');
    if (startTime !== undefined && endTime !== undefined && startTime > endTime) throw binance.invalidParam('startTime');
    const timeZone = p.raw('timeZone');
    const offsetMs = timeZone === undefined ? 0 : timeZoneOffsetMs(timeZone);
    if (offsetMs === undefined) throw binance.invalidParam('timeZone');
    const klines = await ctx.candles.klines(
      { symbol, interval, limit, offsetMs, ...(startTime === undefined ? {} : { startTime }), ...(endTime === undefined ? {} : { endTime }) },
      now,
    );
    return klines.map(klineRow);
  });
}

/** The mid price of a book, 8 digits. */
export const midOf = (b: BookSnapshot): string =>
  fmt(
    dec(b.bids[0]?.[0] ?? '0')
      .plus(dec(b.asks[0]?.[0] ?? '0'))
      .div(2),
    8,
  );

export const bookTickerOf = (b: BookSnapshot) => ({
  symbol: b.symbol,
  bidPrice: fmt8(b.bids[0]?.[0] ?? '0'),
  bidQty: fmt8(b.bids[0]?.[1] ?? '0'),
  askPrice: fmt8(b.asks[0]?.[0] ?? '0'),
  askQty: fmt8(b.asks[0]?.[1] ?? '0'),
});

const ZERO8 = '0.00000000';

/** A kline as Binance's array: open time, OHLC, volume, close time, quote volume, trades, taker volumes, an ignored field. */
export const klineRow = (k: Kline) => {
  const t = k.trades;
  return [
    k.openTime,
    k.open,
    k.high,
    k.low,
    k.close,
    t?.volume ?? ZERO8,
    k.closeTime,
    t?.quoteVolume ?? ZERO8,
    t?.count ?? 0,
    t?.takerBuyVolume ?? ZERO8,
    t?.takerBuyQuoteVolume ?? ZERO8,
    '0',
  ];
};

/** The last 24 hours of `symbol` as one-minute klines, and its newest trade (docs/exchange-api.md#binance-market-data). */
export async function dayOf(ctx: BinanceContext, symbol: BookSymbol, now: number): Promise<{ klines: Kline[]; last: TapeTrade | undefined }> {
  const [klines, [last]] = await Promise.all([
    ctx.candles.klines({ symbol, interval: '1m', startTime: now - 86_400_000, endTime: now, limit: 1440 }, now),
    ctx.tape.store.latest(symbol, 1),
  ]);
  return { klines, last };
}

/** The 24-hour statistics of a symbol: prices from its one-minute candles and its book (the mid), volumes and counts from the venue's trades. */
export function ticker24h(
  book: BookSnapshot,
  { klines: day, last: lastTrade }: { klines: Kline[]; last: TapeTrade | undefined },
  now: number,
  type: 'FULL' | 'MINI',
) {
  const last = midOf(book);
  const traded = day.reduce<Kline['trades']>((sum, k) => mergeTrades(sum, k.trades), undefined);
  const open = day[0]?.open ?? last;
  let high = dec(last);
  let low = dec(last);
  for (const k of day) {
    if (dec(k.high).gt(high)) high = dec(k.high);
    if (dec(k.low).lt(low)) low = dec(k.low);
  }
  const change = dec(last).minus(dec(open));
  const mini = {
    symbol: book.symbol,
    openPrice: open,
    highPrice: fmt(high, 8),
    lowPrice: fmt(low, 8),
    lastPrice: last,
    volume: traded?.volume ?? ZERO8,
    quoteVolume: traded?.quoteVolume ?? ZERO8,
    openTime: now - 86_400_000,
    closeTime: now,
    firstId: traded?.firstId ?? -1,
    lastId: traded?.lastId ?? -1,
    count: traded?.count ?? 0,
  };
  if (type === 'MINI') return mini;
  const { symbol: _symbol, lastPrice: _last, ...rest } = mini;
  const ticker = bookTickerOf(book);
  return {
    symbol: book.symbol,
    priceChange: fmt(change, 8),
    priceChangePercent: dec(open).isZero() ? '0.000' : fmt(change.div(dec(open)).times(100), 3),
    weightedAvgPrice: traded && !dec(traded.volume).isZero() ? fmt(dec(traded.quoteVolume).div(dec(traded.volume)), 8) : last,
    prevClosePrice: open,
    lastPrice: last,
    lastQty: traded && lastTrade && lastTrade.id === traded.lastId ? lastTrade.qty : ZERO8,
    bidPrice: ticker.bidPrice,
    bidQty: ticker.bidQty,
    askPrice: ticker.askPrice,
    askQty: ticker.askQty,
    ...rest,
  };
}
