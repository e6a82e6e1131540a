/**
 * A Binance request's parameters (docs/exchange-api.md#binance-signing): from the query string
 * and, for methods with a body, a form body; a name sent twice in one of them is refused, and a
 * name in both is taken from the query, as Binance does. Readers validate with Binance's codes.
 */
import type { BookSymbol } from '../../kernel/domain.ts';
import { isBookSymbol } from '../../runtime/binance/symbols.ts';
import { binance } from './errors.ts';

const SYMBOL_TEXT = /^[A-Z0-9\-_.]{1,20}$/;
const SYMBOL_LEGAL = '^[A-Z0-9-_.]{1,20}$';
const INTEGER_TEXT = /^[0-9]{1,20}$/;
const INTEGER_LEGAL = '^[0-9]{1,20}$';
const SYMBOLS_TEXT = /^\[("[A-Z0-9\-_.]{1,20}"(,"[A-Z0-9\-_.]{1,20}")*)?\]$/;
const SYMBOLS_LEGAL = '^\\[("[A-Z0-9-_.]{1,20}"(,"[A-Z0-9-_.]{1,20}"){0,}){0,1}\\]$';

/** The symbol statuses a read may filter on. */
const SYMBOL_STATUSES = ['TRADING', 'HALT', 'BREAK'] as const;
/** A status `symbolStatus` may ask for. */
export type SymbolStatus = (typeof SYMBOL_STATUSES)[number];

function parseOne(raw: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(raw)) {
    if (out.has(name)) throw binance.duplicateParam();
    out.set(name, value);
  }
  return out;
}

/** The parameters of one request. */
export class BinanceParams {
  private readonly values: Map<string, string>;

  /** Parses `query` and `body` (both form-encoded as sent); throws -1101 for a name sent twice in one of them. */
  constructor(
    readonly query: string,
    readonly body: string,
  ) {
    const fromBody = parseOne(body);
    const fromQuery = parseOne(query);
    this.values = new Map([...fromBody, ...fromQuery]);
  }

  /** Every name sent. */
  names(): string[] {
    return [...this.values.keys()];
  }

  /** The value sent, or undefined when absent. */
  raw(name: string): string | undefined {
    return this.values.get(name);
  }

  /** A mandatory value (-1102 when absent or empty). */
  required(name: string): string {
    const value = this.values.get(name);
    if (value === undefined || value === '') throw binance.mandatory(name);
    return value;
  }

  /** An optional non-negative integer (-1100 for other characters); absent or empty: undefined. */
  integer(name: string): number | undefined {
    const value = this.values.get(name);
    if (value === undefined || value === '') return undefined;
    if (!INTEGER_TEXT.test(value)) throw binance.illegalChars(name, INTEGER_LEGAL);
    const n = Number(value);
    if (!Number.isSafeInteger(n)) throw binance.invalidParam(name);
    return n;
  }

  /**
   * An optional integer id (an `orderId`, a `fromId`: docs/orders.md#ids): -1100 for anything but
   * 1 to 20 digits; absent or empty: undefined. One past the safe integers names no order or fill.
   */
  id(name: string): number | undefined {
    const value = this.values.get(name);
    if (value === undefined || value === '') return undefined;
    if (!INTEGER_TEXT.test(value)) throw binance.illegalChars(name, INTEGER_LEGAL);
    return Number(value);
  }

  /** A mandatory symbol of the exchange: -1102 absent, -1100 not a symbol's characters, -1121 not one of ours. */
  symbol(name = 'symbol'): BookSymbol {
    return checkSymbol(name, this.required(name));
  }

  /**
   * The symbols asked: `symbol` or `symbols` (a JSON array), or every symbol when neither is sent
   * (null). Both is -1128; a symbol twice -1151.
   */
  symbols(): BookSymbol[] | null {
    const one = this.values.get('symbol');
    const many = this.values.get('symbols');
    if (one !== undefined && many !== undefined) throw binance.badCombo();
    if (one !== undefined) return [checkSymbol('symbol', one === '' ? this.required('symbol') : one)];
    if (many === undefined) return null;
    const compact = many.replace(/\s+/g, '');
    if (!SYMBOLS_TEXT.test(compact) || compact === '[]') throw binance.illegalChars('symbols', SYMBOLS_LEGAL);
    const list = JSON.parse(compact) as string[];
    if (new Set(list).size !== list.length) throw binance.duplicateSymbols();
    return list.map((s) => checkSymbol('symbols', s));
  }

  /**
   * The `symbolStatus` asked (`TRADING`, `HALT` or `BREAK`), or undefined when not sent; -1122 for
   * another value. Every symbol here is `TRADING` (docs/exchange-api.md#binance-market-data).
   */
  symbolStatus(): SymbolStatus | undefined {
    const value = this.values.get('symbolStatus');
    if (value === undefined) return undefined;
    if (!(SYMBOL_STATUSES as readonly string[]).includes(value)) throw binance.badSymbolStatus();
    return value as SymbolStatus;
  }

  /** -1104 when a name outside `allowed` was sent. */
  onlyThese(allowed: readonly string[]): void {
    const sent = this.names();
    const read = sent.filter((n) => allowed.includes(n)).length;
    if (read !== sent.length) throw binance.unread(read, sent.length);
  }
}

function checkSymbol(name: string, value: string): BookSymbol {
  if (!SYMBOL_TEXT.test(value)) throw binance.illegalChars(name, SYMBOL_LEGAL);
  if (!isBookSymbol(value)) throw binance.badSymbol();
  return value;
}
