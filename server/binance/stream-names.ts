/**
 * Names of Binance's market streams this exchange serves (docs/exchange-api.md#binance-market-streams):
 * `<symbol>@bookTicker`, `<symbol>@depth<5|10|20>[@100ms|@1000ms]` (partial books) and
 * `<symbol>@depth[@100ms|@1000ms]` (diff updates); symbols in lower case. Without a speed a depth
 * stream updates every 1000 ms, as on Binance. The trade, kline and ticker streams are `tape-stream-names.ts`'s.
 */
import { BOOK_SYMBOLS, type BookSymbol } from '../../kernel/domain.ts';
import { parseTapeStream, type TapeStream } from './tape-stream-names.ts';

/** A parsed stream name. */
export type MarketStream =
  | { name: string; symbol: BookSymbol; kind: 'bookTicker' }
  | { name: string; symbol: BookSymbol; kind: 'diff'; speed: 100 | 1000 }
  | { name: string; symbol: BookSymbol; kind: 'partial'; levels: 5 | 10 | 20; speed: 100 | 1000 }
  | TapeStream;

const PATTERN = /^([a-z0-9]+)@(?:(bookTicker)|depth(5|10|20)?(?:@(100|1000)ms)?)$/;

/** The stream `name` stands for, or undefined when this exchange serves no such stream. */
export function parseStream(name: string): MarketStream | undefined {
  const m = PATTERN.exec(name);
  if (!m) return parseTapeStream(name);
  const symbol = (m[1] ?? '').toUpperCase();
  if (!(BOOK_SYMBOLS as readonly string[]).includes(symbol)) return undefined;
  const s = symbol as BookSymbol;
  if (m[2]) return { name, symbol: s, kind: 'bookTicker' };
  const speed = m[4] === '100' ? 100 : 1000;
  if (m[3]) return { name, symbol: s, kind: 'partial', levels: Number(m[3]) as 5 | 10 | 20, speed };
  return { name, symbol: s, kind: 'diff', speed };
}
