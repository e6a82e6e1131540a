/**
 * The market streams made from the venue's trades and candles (docs/exchange-api.md#binance-market-streams):
 * `<symbol>@trade` and `<symbol>@aggTrade` as each trade reaches the tape's tail, `<symbol>@ticker`,
 * `<symbol>@miniTicker` and `!miniTicker@arr` every second, `<symbol>@kline_<interval>` every two
 * seconds (and the closed kline, `x` true, once its interval is over). Tickers and klines are
 * computed as REST's `ticker/24hr` and `klines` compute them, and only for streams with subscribers.
 */
import type { TapeTrade } from '../../adapters/store/tape/port.ts';
import { BOOK_SYMBOLS, type BookSymbol } from '../../kernel/domain.ts';
import { KLINE_INTERVALS, type Kline, type KlineInterval } from '../../runtime/binance/candles.ts';
import type { BinanceContext } from '../../runtime/binance/context.ts';
import { dayOf, ticker24h } from './market-routes.ts';
import { ALL_MINI_TICKERS } from './tape-stream-names.ts';

/** How the streams module publishes: only to names with subscribers, the payload built only then. */
export interface StreamOutlet {
  publish(name: string, payload: () => string): void;
  listened(names: string[]): boolean;
}

/** The fields of a FULL `ticker/24hr` answer the ticker events carry. */
interface FullTicker {
  priceChange: string;
  priceChangePercent: string;
  weightedAvgPrice: string;
  prevClosePrice: string;
  lastPrice: string;
  lastQty: string;
  bidPrice: string;
  bidQty: string;
  askPrice: string;
  askQty: string;
  openPrice: string;
  highPrice: string;
  lowPrice: string;
  volume: string;
  quoteVolume: string;
  openTime: number;
  closeTime: number;
  firstId: number;
  lastId: number;
  count: number;
}

const ZERO8 = '0.00000000';

/** A `<symbol>@kline_<interval>` event of `k`. */
export function klineEvent(symbol: BookSymbol, interval: KlineInterval, k: Kline, closed: boolean, now: number) {
  const t = k.trades;
  return {
    e: 'kline',
    E: now,
    s: symbol,
    k: {
      t: k.openTime,
      T: k.closeTime,
      s: symbol,
      i: interval,
      f: t?.firstId ?? -1,
      L: t?.lastId ?? -1,
      o: k.open,
      c: k.close,
      h: k.high,
      l: k.low,
      v: t?.volume ?? ZERO8,
      n: t?.count ?? 0,
      x: closed,
      q: t?.quoteVolume ?? ZERO8,
      V: t?.takerBuyVolume ?? ZERO8,
      Q: t?.takerBuyQuoteVolume ?? ZERO8,
      B: '0',
    },
  };
}

const tradeEvent = (t: TapeTrade, now: number) => ({ e: 'trade', E: now, s: t.symbol, t: t.id, p: t.price, q: t.qty, T: t.time, m: t.isBuyerMaker, M: true });
const aggTradeEvent = (t: TapeTrade, now: number) => ({
  e: 'aggTrade',
  E: now,
  s: t.symbol,
  a: t.id,
  p: t.price,
  q: t.qty,
  f: t.id,
  l: t.id,
  T: t.time,
  m: t.isBuyerMaker,
  M: true,
});
const miniTickerEvent = (s: BookSymbol, t: FullTicker, now: number) => ({
  e: '24hrMiniTicker',
  E: now,
  s,
  c: t.lastPrice,
  o: t.openPrice,
  h: t.highPrice,
  l: t.lowPrice,
  v: t.volume,
  q: t.quoteVolume,
});
const tickerEvent = (s: BookSymbol, t: FullTicker, now: number) => ({
  e: '24hrTicker',
  E: now,
  s,
  p: t.priceChange,
  P: t.priceChangePercent,
  w: t.weightedAvgPrice,
  x: t.prevClosePrice,
  c: t.lastPrice,
  Q: t.lastQty,
  b: t.bidPrice,
  B: t.bidQty,
  a: t.askPrice,
  A: t.askQty,
  o: t.openPrice,
  h: t.highPrice,
  l: t.lowPrice,
  v: t.volume,
  q: t.quoteVolume,
  O: t.openTime,
  C: t.closeTime,
  F: t.firstId,
  L: t.lastId,
  n: t.count,
});

/** Starts the trade, ticker and kline streams on `out`; returns their stop. */
export function startTapeStreams(ctx: BinanceContext, out: StreamOutlet): () => void {
  const now = () => ctx.exchange.now().getTime();
  const stopTrades = ctx.tape.onTrade((t) => {
    const lower = t.symbol.toLowerCase();
    out.publish(`${lower}@trade`, () => JSON.stringify(tradeEvent(t, now())));
    out.publish(`${lower}@aggTrade`, () => JSON.stringify(aggTradeEvent(t, now())));
  });

  const tickers = async () => {
    const at = now();
    const minis: ReturnType<typeof miniTickerEvent>[] = [];
    const all = out.listened([ALL_MINI_TICKERS]);
    for (const symbol of BOOK_SYMBOLS) {
      const lower = symbol.toLowerCase();
      const names = [`${lower}@ticker`, `${lower}@miniTicker`];
      const numbered = ctx.books.of(symbol);
      // a stale book is never quoted (docs/exchange-api.md#binance-market-data)
      if ((!all && !out.listened(names)) || !numbered || !ctx.exchange.books.isFresh(numbered.book)) continue;
      const full: FullTicker | ReturnType<typeof ticker24h> = ticker24h(numbered.book, await dayOf(ctx, symbol, at), at, 'FULL');
      if (!('priceChange' in full)) continue;
      out.publish(names[0] ?? '', () => JSON.stringify(tickerEvent(symbol, full, at)));
      out.publish(names[1] ?? '', () => JSON.stringify(miniTickerEvent(symbol, full, at)));
      minis.push(miniTickerEvent(symbol, full, at));
    }
    if (minis.length > 0) out.publish(ALL_MINI_TICKERS, () => JSON.stringify(minis));
  };

  const lastOpen = new Map<string, number>();
  const klines = async () => {
    const at = now();
    for (const symbol of BOOK_SYMBOLS)
      for (const [interval, size] of Object.entries(KLINE_INTERVALS) as [KlineInterval, number][]) {
        const name = `${symbol.toLowerCase()}@kline_${interval}`;
        if (!out.listened([name])) continue;
        const key = `${symbol}|${interval}`;
        const openTime = Math.floor(at / size) * size;
        const before = lastOpen.get(key);
        lastOpen.set(key, openTime);
        if (before !== undefined && before < openTime) {
          const [closed] = await ctx.candles.klines({ symbol, interval, startTime: before, endTime: before + size - 1, limit: 1 }, at);
          if (closed) out.publish(name, () => JSON.stringify(klineEvent(symbol, interval, closed, true, at)));
        }
        const [current] = await ctx.candles.klines({ symbol, interval, startTime: openTime, limit: 1 }, at);
        if (current) out.publish(name, () => JSON.stringify(klineEvent(symbol, interval, current, false, at)));
      }
  };

  const every = (ms: number, work: () => Promise<void>) => {
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      work()
        .catch((err: unknown) => ctx.exchange.log.warn({ err: err instanceof Error ? err.message : err }, 'a ticker or kline stream event was not made'))
        .finally(() => (busy = false));
    }, ms);
    timer.unref();
    return () => clearInterval(timer);
  };
  const stopTickers = every(1_000, tickers);
  const stopKlines = every(2_000, klines);
  return () => {
    stopTrades();
    stopTickers();
    stopKlines();
  };
}
