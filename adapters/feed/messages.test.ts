import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BOOK_SUBJECTS,
  bookSubject,
  checkBook,
  compareDecimal,
  decodeBook,
  decodePriceTick,
  encodeBook,
  encodePriceTick,
  PRICE_SUBJECT,
  symbolOfBookSubject,
} from './messages.ts';
import type { BookSnapshot } from './port.ts';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const reason = (r: { ok: boolean; reason?: string }) => (r.ok ? 'accepted' : r.reason);

const book = (over: Partial<Record<keyof BookSnapshot, unknown>> = {}) => ({
  symbol: 'BTCUSDT',
  bids: [
    ['97000.10', '0.5'],
    ['97000.00', '1.25'],
  ],
  asks: [
    ['97000.20', '0.3'],
    ['97001', '2'],
  ],
  ts: 1763700000000,
  ...over,
});

describe('subjects', () => {
  it('names the design subjects', () => {
    expect(PRICE_SUBJECT).toBe('market.price.solusdt');
    expect(BOOK_SUBJECTS).toEqual(['market.book.BTCUSDT', 'market.book.ETHUSDT', 'market.book.SOLUSDT']);
    expect(bookSubject('ETHUSDT')).toBe('market.book.ETHUSDT');
    expect(symbolOfBookSubject('market.book.SOLUSDT')).toBe('SOLUSDT');
    expect(symbolOfBookSubject('market.book.DOGEUSDT')).toBeUndefined();
    expect(symbolOfBookSubject('market.price.solusdt')).toBeUndefined();
  });
});

describe('market.price.solusdt', () => {
  it("accepts the design's example with the price as a string, unchanged", () => {
    const r = decodePriceTick(bytes('{"symbol":"solusdt","price":"150.12345678","ts":1763700000000}'));
    expect(r).toEqual({ ok: true, value: { symbol: 'solusdt', price: '150.12345678', ts: 1763700000000 } });
  });

  it('accepts the price as a JSON number and normalises it to a decimal string', () => {
    expect(decodePriceTick('{"symbol":"solusdt","price":150.12345678,"ts":1763700000000}')).toEqual({
      ok: true,
      value: { symbol: 'solusdt', price: '150.12345678', ts: 1763700000000 },
    });
    expect(decodePriceTick('{"symbol":"solusdt","price":150,"ts":1}')).toMatchObject({ ok: true, value: { price: '150' } });
    // never scientific notation, even where String(n) would use it
    expect(decodePriceTick('{"symbol":"solusdt","price":1e-7,"ts":1}')).toMatchObject({ ok: true, value: { price: '0.0000001' } });
  });

  it.each([
    ['not JSON', 'hello'],
    ['a JSON array', '[1,2]'],
    ['another symbol', '{"symbol":"btcusdt","price":"150.1","ts":1}'],
    ['upper-case symbol', '{"symbol":"SOLUSDT","price":"150.1","ts":1}'],
    ['missing price', '{"symbol":"solusdt","ts":1}'],
    ['zero price', '{"symbol":"solusdt","price":"0.000","ts":1}'],
    ['negative price', '{"symbol":"solusdt","price":"-150.1","ts":1}'],
    ['negative number price', '{"symbol":"solusdt","price":-150.1,"ts":1}'],
    ['exponent string', '{"symbol":"solusdt","price":"1.5e2","ts":1}'],
    ['word price', '{"symbol":"solusdt","price":"NaN","ts":1}'],
    ['price with spaces', '{"symbol":"solusdt","price":" 150.1","ts":1}'],
    ['boolean price', '{"symbol":"solusdt","price":true,"ts":1}'],
    ['fractional ts', '{"symbol":"solusdt","price":"150.1","ts":1.5}'],
    ['string ts', '{"symbol":"solusdt","price":"150.1","ts":"1763700000000"}'],
    ['negative ts', '{"symbol":"solusdt","price":"150.1","ts":-1}'],
    ['missing ts', '{"symbol":"solusdt","price":"150.1"}'],
  ])('rejects %s', (_what, payload) => {
    const r = decodePriceTick(payload);
    expect(r.ok).toBe(false);
    expect(reason(r)).toMatch(/\S/);
  });

  it('round-trips through encodePriceTick', () => {
    const tick = { symbol: 'solusdt', price: '149.99', ts: 1763700000123 } as const;
    expect(decodePriceTick(encodePriceTick(tick))).toEqual({ ok: true, value: tick });
  });
});

describe('market.book.<SYMBOL>', () => {
  it("accepts the design's example shape", () => {
    const r = decodeBook(bytes(JSON.stringify(book())), 'BTCUSDT');
    expect(r).toEqual({ ok: true, value: book() });
  });

  it.each([
    ['unknown symbol', book({ symbol: 'DOGEUSDT' })],
    ['lower-case symbol', book({ symbol: 'btcusdt' })],
    ['numbers instead of strings', book({ bids: [[97000.1, 0.5]] })],
    ['a level with three entries', book({ bids: [['97000.10', '0.5', '1']] })],
    [
      'words instead of decimals',
      book({
        bids: [
          ['abc', '1'],
          ['xyz', '1'],
        ],
      }),
    ],
    ['zero quantity', book({ bids: [['97000.10', '0']] })],
    ['negative price', book({ asks: [['-1', '1']] })],
    ['exponent', book({ asks: [['9.7e4', '1']] })],
    [
      'bids ascending',
      book({
        bids: [
          ['97000.00', '1'],
          ['97000.10', '1'],
        ],
      }),
    ],
    [
      'duplicate bid price',
      book({
        bids: [
          ['97000.10', '1'],
          ['97000.1', '1'],
        ],
      }),
    ],
    [
      'asks descending',
      book({
        asks: [
          ['97001', '1'],
          ['97000.20', '1'],
        ],
      }),
    ],
    ['crossed book', book({ bids: [['97000.30', '1']] })],
    ['locked book', book({ bids: [['97000.20', '1']] })],
    ['no bids', book({ bids: [] })],
    ['no asks', book({ asks: [] })],
    ['missing ts', { ...book(), ts: undefined }],
  ])('rejects %s', (_what, payload) => {
    const r = decodeBook(JSON.stringify(payload));
    expect(r.ok).toBe(false);
    expect(reason(r)).toMatch(/\S/);
  });

  it('compares prices as decimals, not as text', () => {
    // "9.5" > "10" as text, but 10 > 9.5 as numbers: this ask side is correctly ascending
    expect(
      checkBook(
        book({
          symbol: 'SOLUSDT',
          bids: [['9', '1']],
          asks: [
            ['9.5', '1'],
            ['10', '1'],
          ],
        }),
      ).ok,
    ).toBe(true);
  });

  it("refuses a book whose symbol is not its subject's", () => {
    expect(reason(decodeBook(JSON.stringify(book()), 'ETHUSDT'))).toMatch(/does not match/);
  });

  it('round-trips through encodeBook', () => {
    const b = book() as BookSnapshot;
    expect(decodeBook(encodeBook(b), 'BTCUSDT')).toEqual({ ok: true, value: b });
  });
});

describe('compareDecimal', () => {
  const plain = fc
    .tuple(fc.stringMatching(/^\d{1,12}$/), fc.option(fc.stringMatching(/^\d{1,10}$/), { nil: undefined }))
    .map(([int, frac]) => (frac === undefined ? int : `${int}.${frac}`));

  it('orders plain decimals exactly as Decimal does', () => {
    fc.assert(
      fc.property(plain, plain, (a, b) => {
        expect(compareDecimal(a, b)).toBe(new Decimal(a).cmp(b));
      }),
      { numRuns: 5_000 },
    );
  });

  it('treats equal values written differently as equal', () => {
    expect(compareDecimal('097000.10', '97000.1000')).toBe(0);
    expect(compareDecimal('5', '5.000')).toBe(0);
  });

  it('is NaN for anything that is not a plain decimal', () => {
    expect(compareDecimal('1e3', '1')).toBeNaN();
    expect(compareDecimal('-1', '1')).toBeNaN();
    expect(compareDecimal(undefined, '1')).toBeNaN();
  });
});
