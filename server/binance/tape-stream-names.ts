/**
 * Names of the market streams made from the venue's trades and candles
 * (docs/exchange-api.md#binance-market-streams): `<symbol>@trade`, `<symbol>@aggTrade`,
 * `<symbol>@kline_<interval>`, `<symbol>@ticker`, `<symbol>@miniTicker` and `!miniTicker@arr`;
 * symbols in lower case, intervals those klines are served in.
 */
import { BOOK_SYMBOLS, type BookSymbol } from '../../kernel/domain.ts';
import { isKlineInterval, type KlineInterval } from '../../runtime/binance/candles.ts';

/** A parsed stream name of the tape. */
export type TapeStream =
  | { name: string; symbol: BookSymbol; kind: 'trade' | 'aggTrade' | 'ticker' | 'miniTicker' }
  | { name: string; symbol: BookSymbol; kind: 'kline'; interval: KlineInterval }
  | { name: string; kind: 'allMiniTickers' };

/** The stream of every symbol's mini ticker. */
export const ALL_MINI_TICKERS = '!miniTicker@arr';

const PATTERN = /^([a-z0-9]+)@(trade|aggTrade|ticker|miniTicker|kline_([0-9a-zA-Z]+))$/;

/** The tape stream `name` stands for, or undefined. */
export function parseTapeStream(name: string): TapeStream | undefined {
  if (name === ALL_MINI_TICKERS) return { name, kind: 'allMiniTickers' };
  const m = PATTERN.exec(name);
  if (!m) return undefined;
  const symbol = (m[1] ?? '').toUpperCase();
  if (!(BOOK_SYMBOLS as readonly string[]).includes(symbol)) return undefined;
  const s = symbol as BookSymbol;
  const interval = m[3];
  if (interval !== undefined) return isKlineInterval(interval) ? { name, symbol: s, kind: 'kline', interval } : undefined;
  return { name, symbol: s, kind: m[2] as 'trade' | 'aggTrade' | 'ticker' | 'miniTicker' };
}
