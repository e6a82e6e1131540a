import { describe, expect, it } from 'vitest';
import { dec } from '../../machines/exchange/money.ts';
import { walkBook } from './walk-book.ts';

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
