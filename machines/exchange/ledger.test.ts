import { describe, expect, it } from 'vitest';
import { applyCashMovement, applyLock, applyTrade, avgCost, freeCash, freeQty, openingBalances, tradeFee } from './ledger.ts';
import { replayJournal } from './journal.ts';
import { dec, fmt } from './money.ts';
import { valueAccount } from '../../runtime/exchange/valuation.ts';

describe('ledger (average-cost method)', () => {
  it('charges the fee on gross, rounded to 10 digits', () => {
    expect(tradeFee(dec('123.4567891234'), dec('0.001')).toFixed()).toBe('0.1234567891');
  });

  it('averages buys with fees in the basis and realizes sells against it', () => {
    let b = openingBalances(dec('1000'));
    b = applyTrade(b, { symbol: 'ETHUSDT', side: 'BUY', qty: dec('1'), gross: dec('100'), fee: dec('0.1') });
    b = applyTrade(b, { symbol: 'ETHUSDT', side: 'BUY', qty: dec('1'), gross: dec('200'), fee: dec('0.2') });
    expect(avgCost(b.positions.ETHUSDT!).toFixed()).toBe('150.15');
    b = applyTrade(b, { symbol: 'ETHUSDT', side: 'SELL', qty: dec('0.5'), gross: dec('90'), fee: dec('0.09') });
    // released 0.5 x 150.15 = 75.075; proceeds 89.91
    expect(b.positions.ETHUSDT!.realizedPnl.toFixed()).toBe('14.835');
    expect(avgCost(b.positions.ETHUSDT!).toFixed()).toBe('150.15');
    expect(b.cash.toFixed()).toBe('789.61');
    expect(b.feesPaid.toFixed()).toBe('0.39');
  });

  it('keeps pnl = realized + unrealized = equity - (initialCash + netDeposits)', () => {
    let b = openingBalances(dec('500'));
    b = applyTrade(b, { symbol: 'SOLUSDT', side: 'BUY', qty: dec('3'), gross: dec('300'), fee: dec('0.3') });
    b = applyCashMovement(b, dec('-50'));
    b = applyTrade(b, { symbol: 'SOLUSDT', side: 'SELL', qty: dec('1'), gross: dec('110'), fee: dec('0.11') });
    const t = valueAccount(b, dec('500'), { SOLUSDT: dec('105') });
    expect(fmt(t.pnl)).toBe(fmt(t.realizedPnl.plus(t.unrealizedPnl)));
    expect(fmt(t.pnl)).toBe(fmt(t.equity.minus(dec('500').plus(b.netDeposits))));
    expect(fmt(t.positionsValue)).toBe('210.0000000000');
  });

  it('values a position without any book at its cost basis', () => {
    const b = applyTrade(openingBalances(dec('500')), { symbol: 'BTCUSDT', side: 'BUY', qty: dec('0.001'), gross: dec('97'), fee: dec('0.097') });
    expect(fmt(valueAccount(b, dec('500'), {}).unrealizedPnl)).toBe('0.0000000000');
  });
});

describe('locks', () => {
  it('hold part of cash or of a position without moving it, and replay from LOCK/UNLOCK entries', () => {
    let b = applyTrade(openingBalances(dec('1000')), { symbol: 'SOLUSDT', side: 'BUY', qty: dec('2'), gross: dec('200'), fee: dec('0.2') });
    b = applyLock(applyLock(b, 'USDT', dec('300.3')), 'SOLUSDT', dec('1.5'));
    expect(b.cash.toFixed()).toBe('799.8');
    expect(freeCash(b).toFixed()).toBe('499.5');
    expect(freeQty(b, 'SOLUSDT').toFixed()).toBe('0.5');
    expect(freeQty(b, 'BTCUSDT').toFixed()).toBe('0');
    b = applyLock(b, 'USDT', dec('-300.3'));
    const replayed = replayJournal([
      { type: 'OPEN', ts: 't', amount: '1000' },
      { type: 'TRADE', ts: 't', orderId: 'o', symbol: 'SOLUSDT', side: 'BUY', qty: '2', gross: '200', fee: '0.2' },
      { type: 'LOCK', ts: 't', orderId: 'a', asset: 'USDT', amount: '300.3' },
      { type: 'LOCK', ts: 't', orderId: 'b', asset: 'SOLUSDT', amount: '1.5' },
      { type: 'UNLOCK', ts: 't', orderId: 'a', asset: 'USDT', amount: '300.3' },
    ]);
    expect(replayed.cashLocked.toFixed()).toBe(b.cashLocked.toFixed());
    expect(replayed.positions.SOLUSDT?.locked.toFixed()).toBe('1.5');
    expect(replayed.cash.toFixed()).toBe(b.cash.toFixed());
  });
});

describe('money formatting', () => {
  it('never uses exponent notation and never prints -0', () => {
    expect(fmt(dec('1e-12'))).toBe('0.0000000000');
    expect(fmt(dec('-1e-12'))).toBe('0.0000000000');
    expect(fmt(dec('1e25'))).toBe('10000000000000000000000000.0000000000');
  });
});
