/**
 * The two market-data messages on NATS, declared once (docs/operations.md#market-data-on-nats) and
 * imported by the adapters, the publisher, tests and benchmarks.
 *
 * @example
 *   const r = decodePriceTick(msg.data);
 *   if (r.ok) use(r.value); else log.warn({ reason: r.reason }, 'dropped');
 */
import { Decimal } from 'decimal.js';
import * as v from 'valibot';
import { type BookLevel, type BookSnapshot, type PriceTick } from './port.ts';
import { BOOK_SYMBOLS, type BookSymbol } from '../../kernel/domain.ts';
import { base58Address } from '../../kernel/schemas.ts';

/** Subject of SOL/USDT ticks (docs/gateway-api.md#price). */
export const PRICE_SUBJECT = 'market.price.solusdt';

/** Subject of one symbol's order book. */
export const bookSubject = (symbol: BookSymbol): `market.book.${BookSymbol}` => `market.book.${symbol}`;

/** Subjects of every book the exchange trades against (docs/exchange-api.md#symbols). */
export const BOOK_SUBJECTS = BOOK_SYMBOLS.map(bookSubject);

/** The symbol a book subject carries, or undefined when the subject is not a book subject. */
export function symbolOfBookSubject(subject: string): BookSymbol | undefined {
  const tail = subject.startsWith('market.book.') ? subject.slice('market.book.'.length) : '';
  return (BOOK_SYMBOLS as readonly string[]).includes(tail) ? (tail as BookSymbol) : undefined;
}

/** A strictly positive decimal string without sign or exponent, e.g. "97000.10". */
export const PositiveDecimal = v.pipe(
  v.string(),
  v.maxLength(64, 'decimal too long'),
  v.regex(/^\d+(\.\d+)?$/, 'must be a plain decimal string'),
  v.regex(/[1-9]/, 'must be greater than zero'),
);

/** A price given as a decimal string or a JSON number (docs/operations.md#market-data-on-nats), normalised to a decimal string. */
export const PriceValue = v.union([
  PositiveDecimal,
  v.pipe(
    v.number(),
    v.finite('must be finite'),
    v.gtValue(0, 'must be greater than zero'),
    // toFixed() never uses scientific notation, unlike String(1e-7)
    v.transform((n: number) => new Decimal(n).toFixed()),
  ),
]);

/** Unix milliseconds. */
export const UnixMs = v.pipe(v.number(), v.safeInteger('must be an integer of unix ms'), v.minValue(0, 'must be >= 0'));

/** Base58 of 32 bytes (a public key). */
const Base58Key = base58Address('must be a base58 public key');
/** Base64 of a 64-byte signature. */
const Base64Signature = v.pipe(v.string(), v.regex(/^[A-Za-z0-9+/]{86}==$/, 'must be a base64 Ed25519 signature'));

/**
 * `market.price.solusdt` payload. A signed tick adds `seq`, `signature` and `signer`
 * (docs/decisions.md#signed-prices), all three or none: an unsigned tick still parses.
 */
export const PriceTickMessage = v.pipe(
  v.object({
    symbol: v.literal('solusdt'),
    price: PriceValue,
    ts: UnixMs,
    seq: v.optional(v.pipe(v.number(), v.safeInteger('must be an integer'), v.minValue(0, 'must be >= 0'))),
    signature: v.optional(Base64Signature),
    signer: v.optional(Base58Key),
  }),
  v.check(
    (t) => [t.seq, t.signature, t.signer].every((f) => f === undefined) || [t.seq, t.signature, t.signer].every((f) => f !== undefined),
    'seq, signature and signer come together',
  ),
  v.transform(({ seq, signature, signer, ...tick }): PriceTick =>
    seq !== undefined && signature !== undefined && signer !== undefined ? { ...tick, signed: { seq, signature, signer } } : tick,
  ),
);

const Level = v.strictTuple([PositiveDecimal, PositiveDecimal]);

const PLAIN = /^(\d+)(?:\.(\d+))?$/;

/**
 * Compares two plain decimal strings as numbers: -1, 0 or 1, like Decimal#cmp but without
 * building Decimals (a book has 40 prices). NaN when either is not a plain decimal: valibot
 * runs later checks even after earlier issues.
 */
export function compareDecimal(a: string | undefined, b: string | undefined): number {
  const ma = a === undefined ? null : PLAIN.exec(a);
  const mb = b === undefined ? null : PLAIN.exec(b);
  if (!ma || !mb) return NaN;
  const ia = ma[1]!.replace(/^0+/, '');
  const ib = mb[1]!.replace(/^0+/, '');
  if (ia.length !== ib.length) return ia.length < ib.length ? -1 : 1;
  if (ia !== ib) return ia < ib ? -1 : 1;
  // fractions compare as text once trailing zeros are gone: "1" (0.1) > "05" (0.05), "12" > "1"
  const fa = (ma[2] ?? '').replace(/0+$/, '');
  const fb = (mb[2] ?? '').replace(/0+$/, '');
  return fa === fb ? 0 : fa < fb ? -1 : 1;
}

const isSorted = (levels: readonly BookLevel[], direction: 1 | -1): boolean =>
  levels.every((level, i) => i === 0 || compareDecimal(level[0], levels[i - 1]?.[0]) === direction);

/** `market.book.<SYMBOL>` payload: best level first, bids strictly descending, asks strictly ascending, not crossed. */
export const BookMessage = v.pipe(
  v.object({
    symbol: v.picklist(BOOK_SYMBOLS),
    bids: v.pipe(
      v.array(Level),
      v.minLength(1, 'needs at least one bid'),
      v.maxLength(5000, 'too many levels'),
      v.check((l) => isSorted(l, -1), 'bids must be strictly descending by price'),
    ),
    asks: v.pipe(
      v.array(Level),
      v.minLength(1, 'needs at least one ask'),
      v.maxLength(5000, 'too many levels'),
      v.check((l) => isSorted(l, 1), 'asks must be strictly ascending by price'),
    ),
    ts: UnixMs,
  }),
  v.check((b) => compareDecimal(b.bids[0]?.[0], b.asks[0]?.[0]) === -1, 'book is crossed: best bid >= best ask'),
);

/** Result of decoding one message: the value, or why it was refused. */
export type Decoded<T> = { ok: true; value: T } | { ok: false; reason: string };

function validate<T>(schema: v.GenericSchema<unknown, T>, json: unknown): Decoded<T> {
  const result = v.safeParse(schema, json);
  if (result.success) return { ok: true, value: result.output };
  const issue = result.issues[0];
  const path = issue ? v.getDotPath(issue) : null;
  return { ok: false, reason: `${path ? `${path}: ` : ''}${issue?.message ?? 'invalid'}` };
}

function decode<T>(schema: v.GenericSchema<unknown, T>, payload: Uint8Array | string): Decoded<T> {
  let json: unknown;
  try {
    json = JSON.parse(typeof payload === 'string' ? payload : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).toString('utf8'));
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  return validate(schema, json);
}

/** Decodes a `market.price.solusdt` payload. */
export const decodePriceTick = (payload: Uint8Array | string): Decoded<PriceTick> => decode(PriceTickMessage, payload);

/** Decodes a `market.book.<SYMBOL>` payload; with `expected`, a book of another symbol is refused. */
export function decodeBook(payload: Uint8Array | string, expected?: BookSymbol): Decoded<BookSnapshot> {
  const r = decode(BookMessage, payload);
  if (r.ok && expected !== undefined && r.value.symbol !== expected) {
    return { ok: false, reason: `symbol ${r.value.symbol} does not match subject's ${expected}` };
  }
  return r;
}

/** Validates an in-memory book (e.g. built from another wire format) against the NATS book rules. */
export const checkBook = (book: unknown): Decoded<BookSnapshot> => validate(BookMessage, book);

/** JSON payload of a tick, in the wire format above (signed fields when it is signed). */
export const encodePriceTick = (tick: PriceTick): string =>
  JSON.stringify(
    tick.signed ? { symbol: tick.symbol, price: tick.price, ts: tick.ts, ...tick.signed } : { symbol: tick.symbol, price: tick.price, ts: tick.ts },
  );

/** JSON payload of a book, in the wire format above. */
export const encodeBook = (book: BookSnapshot): string => JSON.stringify({ symbol: book.symbol, bids: book.bids, asks: book.asks, ts: book.ts });
