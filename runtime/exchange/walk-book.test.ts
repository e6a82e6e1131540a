import { describe, expect, it } from 'vitest';
import { dec } from '../../machines/exchange/money.ts';
import { consume, giveBack, walkBook } from './walk-book.ts';

const book = {
  bids: [
    ['99.5', '1'],
    ['99', '2'],
  ] as [string, string][],
  asks: [
    ['100', '0.5'],
    ['100.5', '1'],
    ['102', '3'],
  ] as [string, string][],
};

describe('walkBook', () => {
  it('buys at the best ask when the first level is enough', () => {
    const w = walkBook(book, 'BUY', dec('0.2'));
    expect([w.avgPrice.toFixed(), w.gross.toFixed(), w.filledQty.toFixed(), w.partial]).toEqual(['100', '20', '0.2', false]);
  });

  it('sells at the best bid and walks down', () => {
    const w = walkBook(book, 'SELL', dec('2'));
    expect(w.fills.map((f) => [f.price.toFixed(), f.qty.toFixed()])).toEqual([
      ['99.5', '1'],
      ['99', '1'],
    ]);
    expect(w.avgPrice.toFixed()).toBe('99.25');
  });

  it('walks asks at the volume-weighted price', () => {
    const w = walkBook(book, 'BUY', dec('1.5'));
    // 0.5 x 100 + 1 x 100.5 = 150.5 over 1.5
    expect(w.gross.toFixed()).toBe('150.5');
    expect(w.avgPrice.toFixed()).toBe('100.3333333333');
  });

  it('fills what exists when depth runs out', () => {
    const w = walkBook(book, 'BUY', dec('10'));
    expect([w.filledQty.toFixed(), w.partial, w.gross.toFixed()]).toEqual(['4.5', true, '456.5']);
  });

  it('keeps at most 10 fraction digits of a quoted level', () => {
    const w = walkBook({ bids: [], asks: [['3', '0.123456789012']] }, 'BUY', dec('1'));
    expect(w.filledQty.toFixed()).toBe('0.123456789');
  });

  it('fills nothing on an empty side', () => {
    expect(walkBook({ bids: [], asks: [] }, 'SELL', dec('1')).filledQty.isZero()).toBe(true);
  });
});

describe('consumed liquidity', () => {
  const fresh = () => ({ bids: book.bids.map((l) => [...l] as [string, string]), asks: book.asks.map((l) => [...l] as [string, string]) });

  it('leaves what one order took out of the next walk on the same snapshot, until it is given back', () => {
    const snap = fresh();
    const first = walkBook(snap, 'BUY', dec('1'));
    consume(snap, 'BUY', first.fills);
    const second = walkBook(snap, 'BUY', dec('1'));
    expect(second.fills.map((f) => [f.price.toFixed(), f.qty.toFixed()])).toEqual([
      ['100.5', '0.5'],
      ['102', '0.5'],
    ]);
    giveBack(snap, 'BUY', first.fills);
    expect(walkBook(snap, 'BUY', dec('1')).avgPrice.toFixed()).toBe(first.avgPrice.toFixed());
    // another snapshot (another object) has nothing consumed
    consume(snap, 'BUY', first.fills);
    expect(walkBook(fresh(), 'BUY', dec('1')).avgPrice.toFixed()).toBe(first.avgPrice.toFixed());
  });

  it('stops at a limit price and spends at most a quote amount', () => {
    expect(walkBook(book, 'BUY', dec('5'), { limit: dec('100.5') }).filledQty.toFixed()).toBe('1.5');
    expect(walkBook(book, 'SELL', dec('5'), { limit: dec('99.5') }).filledQty.toFixed()).toBe('1');
    const byQuote = walkBook(book, 'BUY', dec('1e9'), { quote: dec('100.5') });
    expect(byQuote.fills.map((f) => [f.price.toFixed(), f.qty.toFixed(), f.gross.toFixed()])).toEqual([
      ['100', '0.5', '50'],
      ['100.5', '0.5024875621', '50.499999991'],
    ]);
  });
});
