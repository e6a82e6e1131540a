import { describe, expect, it } from 'vitest';
import { createMemoryCandleStore } from '../../adapters/store/candles/memory.ts';
import { log } from '../../kernel/log.ts';
import { CandleRecorder, fold, timeZoneOffsetMs } from './candles.ts';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const at = (minute: number, second = 0) => T0 + minute * 60_000 + second * 1000;
const book = (bid: string, ask: string, ts: number) => ({ symbol: 'ETHUSDT' as const, bids: [[bid, '1'] as const], asks: [[ask, '1'] as const], ts });

describe('candles from books', () => {
  it('makes one-minute candles of the mid price, stores closed minutes, and folds them into longer intervals', async () => {
    const store = createMemoryCandleStore();
    const recorder = new CandleRecorder(store, log, 60_000);
    recorder.add(book('99', '101', at(0, 1))); // mid 100
    recorder.add(book('104', '106', at(0, 30))); // 105
    recorder.add(book('94', '96', at(0, 59))); // 95
    recorder.add(book('100', '102', at(1, 5))); // 101, closes minute 0
    recorder.add(book('200', '202', at(0, 40))); // late for a closed minute: ignored
    recorder.add(book('110', '112', at(4, 0))); // 111
    await new Promise((r) => setImmediate(r));
    expect((await store.range('ETHUSDT', 0, at(10), 10)).map((c) => [c.openTime, c.open, c.high, c.low, c.close, c.books])).toEqual([
      [at(0), '100.00000000', '105.00000000', '95.00000000', '95.00000000', 3],
      [at(1), '101.00000000', '101.00000000', '101.00000000', '101.00000000', 1],
    ]);
    const minutes = await recorder.klines({ symbol: 'ETHUSDT', interval: '1m', limit: 500 }, at(4, 30));
    expect(minutes.map((k) => [k.openTime, k.close, k.closeTime])).toEqual([
      [at(0), '95.00000000', at(1) - 1],
      [at(1), '101.00000000', at(2) - 1],
      [at(4), '111.00000000', at(5) - 1],
    ]);
    const fives = await recorder.klines({ symbol: 'ETHUSDT', interval: '5m', limit: 500 }, at(4, 30));
    expect(fives.map((k) => [k.openTime, k.open, k.high, k.low, k.close, k.books])).toEqual([
      [at(0), '100.00000000', '111.00000000', '95.00000000', '111.00000000', 5],
    ]);
    expect((await recorder.klines({ symbol: 'ETHUSDT', interval: '1m', limit: 2 }, at(4, 30))).map((k) => k.openTime)).toEqual([at(1), at(4)]);
    expect((await recorder.klines({ symbol: 'ETHUSDT', interval: '1m', startTime: at(1), limit: 1 }, at(4, 30))).map((k) => k.openTime)).toEqual([at(1)]);
    expect(await recorder.klines({ symbol: 'ETHUSDT', interval: '1m', startTime: at(2), endTime: at(3), limit: 10 }, at(4, 30))).toEqual([]);
  });

  it('folds candles by interval boundaries', () => {
    const c = (m: number, close: string) => ({ openTime: at(m), open: close, high: close, low: close, close, books: 1 });
    expect(fold([c(0, '1'), c(14, '3'), c(15, '2')], 15 * 60_000).map((k) => [k.openTime, k.open, k.high, k.close])).toEqual([
      [at(0), '1', '3', '3'],
      [at(15), '2', '2', '2'],
    ]);
  });

  it('cuts intervals in the timeZone asked: a 1h candle at +05:45 opens at 45 past the UTC hour, plus 15 minutes', () => {
    const c = (m: number, close: string) => ({ openTime: at(m), open: close, high: close, low: close, close, books: 1 });
    const offset = timeZoneOffsetMs('05:45') as number;
    expect(fold([c(0, '1'), c(14, '2'), c(15, '3'), c(74, '4')], 60 * 60_000, offset).map((k) => [k.openTime, k.open, k.close, k.closeTime])).toEqual([
      [at(-45), '1', '2', at(15) - 1],
      [at(15), '3', '4', at(75) - 1],
    ]);
  });

  it('reads timeZone as Binance does: hours or hours:minutes from -12:00 to +14:00', () => {
    expect(['0', '8', '-1', '+14', '05:45', '-1:00', '-12:00', '14:00'].map(timeZoneOffsetMs)).toEqual(
      [0, 480, -60, 840, 345, -60, -720, 840].map((m) => m * 60_000),
    );
    expect(['15', '-13', '14:01', '5:60', 'UTC', '', '1.5', '+-1'].map(timeZoneOffsetMs)).toEqual(Array(8).fill(undefined));
  });
});

describe('candles with trades', () => {
  const trade = (id: number, time: number, qty: string, isBuyerMaker = false) => ({
    id,
    symbol: 'ETHUSDT' as const,
    price: '100.00000000',
    qty: `${qty}.00000000`,
    quoteQty: `${Number(qty) * 100}.00000000`,
    time,
    isBuyerMaker,
  });

  it("adds each trade's volume to its minute, the taker buys apart, and folds them into longer intervals", async () => {
    const store = createMemoryCandleStore();
    const recorder = new CandleRecorder(store, log, 60_000);
    recorder.add(book('99', '101', at(0, 1)));
    recorder.addTrade(trade(1, at(0, 2), '1'));
    recorder.addTrade(trade(2, at(0, 3), '2', true));
    recorder.addTrade(trade(3, at(1, 1), '4')); // no book yet in minute 1: it opens at the last close
    recorder.addTrade(trade(4, at(0, 59), '8')); // late, of the minute closed just before: counted there
    recorder.add(book('109', '111', at(1, 30)));
    await new Promise((r) => setImmediate(r));
    const minutes = await recorder.klines({ symbol: 'ETHUSDT', interval: '1m', limit: 10 }, at(1, 40));
    expect(minutes.map((k) => [k.openTime, k.open, k.close, k.trades])).toEqual([
      [
        at(0),
        '100.00000000',
        '100.00000000',
        {
          volume: '11.00000000',
          quoteVolume: '1100.00000000',
          count: 3,
          takerBuyVolume: '9.00000000',
          takerBuyQuoteVolume: '900.00000000',
          firstId: 1,
          lastId: 4,
        },
      ],
      [
        at(1),
        '100.00000000',
        '110.00000000',
        {
          volume: '4.00000000',
          quoteVolume: '400.00000000',
          count: 1,
          takerBuyVolume: '4.00000000',
          takerBuyQuoteVolume: '400.00000000',
          firstId: 3,
          lastId: 3,
        },
      ],
    ]);
    const [five] = await recorder.klines({ symbol: 'ETHUSDT', interval: '5m', limit: 10 }, at(1, 40));
    expect(five?.trades).toMatchObject({ volume: '15.00000000', count: 4, firstId: 1, lastId: 4 });
    recorder.addTrade(trade(5, at(3, 0), '1'));
    recorder.addTrade(trade(6, at(0, 30), '1')); // older than the minute closed last: not counted
    await new Promise((r) => setImmediate(r));
    const again = await recorder.klines({ symbol: 'ETHUSDT', interval: '1m', limit: 10 }, at(3, 10));
    expect(again.map((k) => k.trades?.count)).toEqual([3, 1, 1]);
  });
});
