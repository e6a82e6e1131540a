import { describe, expect, it, vi } from 'vitest';
import type { TradeRecord } from '../../adapters/store/exchange/port.ts';
import { createMemoryTapeStore } from '../../adapters/store/tape/memory.ts';
import type { TapeTrade } from '../../adapters/store/tape/port.ts';
import { log } from '../../kernel/log.ts';
import { averagePrice, tradesBetween } from './tape-views.ts';
import { TradeTape } from './trade-tape.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const fill = (over: Partial<TradeRecord>): TradeRecord => ({
  tradeId: 't',
  orderId: 'o',
  clientOrderId: 'c',
  symbol: 'BTCUSDT',
  side: 'BUY',
  price: '100',
  qty: '0.5',
  quoteQty: '50',
  commission: '0.05',
  commissionAsset: 'USDT',
  liquidity: 'TAKER',
  bookTs: 1,
  time: 1_000,
  ...over,
});

describe('trade tape', () => {
  it("puts a commit's fills on each symbol's tape, the buyer maker when a resting BUY or a taker SELL filled", async () => {
    const store = createMemoryTapeStore(1000, () => 0);
    const tape = new TradeTape(store, log);
    await tape.record([
      fill({ side: 'BUY', liquidity: 'TAKER', price: '100.1', qty: '0.25', quoteQty: '25.025' }),
      fill({ side: 'SELL', liquidity: 'TAKER', symbol: 'SOLUSDT' }),
      fill({ side: 'BUY', liquidity: 'MAKER', time: 2_000 }),
      fill({ side: 'SELL', liquidity: 'MAKER', time: 3_000 }),
    ]);
    expect(await store.latest('BTCUSDT', 10)).toEqual([
      { id: 1, symbol: 'BTCUSDT', price: '100.10000000', qty: '0.25000000', quoteQty: '25.02500000', time: 1_000, isBuyerMaker: false },
      { id: 2, symbol: 'BTCUSDT', price: '100.00000000', qty: '0.50000000', quoteQty: '50.00000000', time: 2_000, isBuyerMaker: true },
      { id: 3, symbol: 'BTCUSDT', price: '100.00000000', qty: '0.50000000', quoteQty: '50.00000000', time: 3_000, isBuyerMaker: false },
    ]);
    expect((await store.latest('SOLUSDT', 10)).map((t) => [t.id, t.isBuyerMaker])).toEqual([[1, true]]);
  });

  it('puts the fills of orders recorded while an append is in flight in one next append, each call answered once its fills are on the tape', async () => {
    const store = createMemoryTapeStore(1000, () => 0);
    const appends: number[] = [];
    const slow = {
      ...store,
      append: async (symbol: Parameters<typeof store.append>[0], trades: Parameters<typeof store.append>[1]) => {
        appends.push(trades.length);
        await sleep(10);
        return store.append(symbol, trades);
      },
    };
    const tape = new TradeTape(slow, log);
    const call = (i: number) => tape.record([fill({ time: i })]).then(async () => (await store.latest('BTCUSDT', 100)).some((t) => t.time === i));
    const calls = [call(0)];
    await sleep(2); // the first append is in flight
    for (let i = 1; i < 20; i++) calls.push(call(i));
    expect(await Promise.all(calls)).toEqual(Array.from({ length: 20 }, () => true));
    // the first call's append, then everything that came meanwhile in one
    expect(appends).toEqual([1, 19]);
    expect((await store.latest('BTCUSDT', 100)).map((t) => [t.id, t.time])).toEqual(Array.from({ length: 20 }, (_, i) => [i + 1, i]));
  });

  it('a failed append is logged and the next batch still goes out', async () => {
    const store = createMemoryTapeStore(1000, () => 0);
    let failNext = true;
    const flaky = {
      ...store,
      append: async (symbol: Parameters<typeof store.append>[0], trades: Parameters<typeof store.append>[1]) => {
        if (failNext) {
          failNext = false;
          throw new Error('redis down');
        }
        return store.append(symbol, trades);
      },
    };
    const tape = new TradeTape(flaky, log);
    await tape.record([fill({ time: 1 })]);
    await tape.record([fill({ time: 2 })]);
    expect((await store.latest('BTCUSDT', 10)).map((t) => t.time)).toEqual([2]);
  });

  it("tells every trade of the store once and in order from its start on, another process's too", async () => {
    const store = createMemoryTapeStore(1000, () => 0);
    const here = new TradeTape(store, log, 20);
    const there = new TradeTape(store, log, 20);
    await here.record([fill({ time: 1 })]); // before the start: not told
    const told: [number, string][] = [];
    here.onTrade((t) => told.push([t.id, t.symbol]));
    await here.start();
    await there.record([fill({ time: 2 }), fill({ symbol: 'ETHUSDT', time: 3 })]);
    await here.record([fill({ time: 4 })]);
    await vi.waitFor(() => expect(told).toHaveLength(3), { timeout: 2_000, interval: 10 });
    await sleep(60);
    // in id order per symbol, each once
    expect(told.filter(([, s]) => s === 'BTCUSDT')).toEqual([
      [2, 'BTCUSDT'],
      [3, 'BTCUSDT'],
    ]);
    expect(told.filter(([, s]) => s === 'ETHUSDT')).toEqual([[1, 'ETHUSDT']]);
    await here.stop();
  });

  it('starts while the store does not answer, and tells the trades made once it does', async () => {
    const store = createMemoryTapeStore(1000, () => 0);
    let down = true;
    const flaky = { ...store, latest: (s: 'BTCUSDT', n: number) => (down ? Promise.reject(new Error('down')) : store.latest(s, n)) };
    const tape = new TradeTape(flaky, log, 20);
    const told: number[] = [];
    tape.onTrade((t) => told.push(t.id));
    await tape.start();
    down = false;
    await sleep(60);
    await tape.record([fill({})]);
    await vi.waitFor(() => expect(told).toEqual([1]), { timeout: 2_000, interval: 10 });
    await tape.stop();
  });

  it('logs a store failure and does not throw: the ledger has the fills', async () => {
    const store = createMemoryTapeStore();
    const failing = { ...store, append: () => Promise.reject(new Error('down')) };
    await expect(new TradeTape(failing, log).record([fill({})])).resolves.toBeUndefined();
  });
});

describe('tape views', () => {
  const t = (id: number, time: number, price = '100.00000000', qty = '1.00000000', quoteQty = '100.00000000'): TapeTrade => ({
    id,
    symbol: 'BTCUSDT',
    price,
    qty,
    quoteQty,
    time,
    isBuyerMaker: false,
  });
  it('picks trades by time: from startTime the oldest, else the newest up to endTime', () => {
    const held = [t(1, 10), t(2, 20), t(3, 30), t(4, 40)];
    expect(tradesBetween(held, { startTime: 20, limit: 2 }).map((x) => x.id)).toEqual([2, 3]);
    expect(tradesBetween(held, { endTime: 30, limit: 2 }).map((x) => x.id)).toEqual([2, 3]);
    expect(tradesBetween(held, { startTime: 15, endTime: 35, limit: 10 }).map((x) => x.id)).toEqual([2, 3]);
  });

  it('averages the last 5 minutes by volume, and is null without a trade in them', () => {
    const now = 1_000_000;
    const held = [
      t(1, now - 400_000, '50.00000000'),
      t(2, now - 200_000, '100.00000000', '1.00000000', '100.00000000'),
      t(3, now - 100_000, '103.00000000', '3.00000000', '309.00000000'),
    ];
    expect(averagePrice(held, now)).toEqual({ price: '102.25000000', closeTime: now - 100_000 });
    expect(averagePrice(held.slice(0, 1), now)).toBeNull();
  });
});
