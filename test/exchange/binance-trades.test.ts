/**
 * The venue's public trades, black-box (docs/exchange-api.md#binance-trades): a fill made by one
 * account, through either API, is on the tape (`trades`, `historicalTrades`, `aggTrades`,
 * `avgPrice`) and in the `@trade` and `@aggTrade` streams with the same id, and counts in klines,
 * `ticker/24hr` and their streams. Every answer is checked against the OpenAPI document.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { collect, type Collector } from '../support/ws-collector.ts';
import { exchangeForSuite } from './harness.ts';
import { binanceCall, expectCode, orderClient } from './binance-support.ts';
import { book, publishAndWait } from './support.ts';

const t = exchangeForSuite({ BINANCE_WEIGHT_LIMIT: '1000000' });
const { trader, place } = orderClient(t);
const sockets: Collector[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.socket.terminate();
});

const eventually = (check: () => unknown, timeout = 5_000) => vi.waitFor(check, { timeout, interval: 50 });
const get = (path: string, query = '') => binanceCall(t.baseUrl, 'GET', `/api/v3${path}`, query);

/** A connection that keeps every message it receives. */
async function connect(path: string): Promise<{ messages: any[]; send(m: unknown): void }> {
  const c = await collect(t.baseUrl.replace('http', 'ws') + path);
  sockets.push(c);
  return { messages: c.messages, send: (m) => c.socket.send(JSON.stringify(m)) };
}

describe('the trade tape', () => {
  it('has every fill of a taker order, in the trade streams with the same ids, and serves it as trades, aggTrades and avgPrice', async () => {
    await t.freshBooks();
    const raw = await connect('/ws/btcusdt@trade');
    const combined = await connect('/stream?streams=btcusdt@aggTrade');
    const before = (await get('/trades', 'symbol=BTCUSDT&limit=1000')).body as { id: number }[];
    const { key } = await trader('taker');
    // asks 1@100, 2@101: two fills
    const placed = await place(key, { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '1.5' });
    expect(placed.status).toBe(200);
    expect(placed.body.fills).toHaveLength(2);

    const trades = await get('/trades', 'symbol=BTCUSDT');
    expect(trades.weight).toBeGreaterThanOrEqual(25);
    const mine = (trades.body as any[]).slice(-2);
    expect(mine).toEqual([
      {
        id: expect.any(Number),
        price: '100.00000000',
        qty: '1.00000000',
        quoteQty: '100.00000000',
        time: expect.any(Number),
        isBuyerMaker: false,
        isBestMatch: true,
      },
      {
        id: expect.any(Number),
        price: '101.00000000',
        qty: '0.50000000',
        quoteQty: '50.50000000',
        time: expect.any(Number),
        isBuyerMaker: false,
        isBestMatch: true,
      },
    ]);
    const [first, second] = mine.map((x) => x.id as number) as [number, number];
    expect(second).toBe(first + 1);
    expect(first).toBeGreaterThan(Math.max(0, ...before.map((x) => x.id)));

    await eventually(() => expect(raw.messages.filter((m) => m.t >= first)).toHaveLength(2));
    expect(raw.messages.find((m) => m.t === first)).toEqual({
      e: 'trade',
      E: expect.any(Number),
      s: 'BTCUSDT',
      t: first,
      p: '100.00000000',
      q: '1.00000000',
      T: mine[0].time,
      m: false,
      M: true,
    });
    await eventually(() => expect(combined.messages.filter((m) => m.data.a >= first)).toHaveLength(2));
    expect(combined.messages.find((m) => m.data.a === second)).toEqual({
      stream: 'btcusdt@aggTrade',
      data: {
        e: 'aggTrade',
        E: expect.any(Number),
        s: 'BTCUSDT',
        a: second,
        p: '101.00000000',
        q: '0.50000000',
        f: second,
        l: second,
        T: mine[1].time,
        m: false,
        M: true,
      },
    });

    const agg = await get('/aggTrades', `symbol=BTCUSDT&fromId=${first}`);
    expect(agg.weight).toBeGreaterThanOrEqual(4);
    expect(agg.body).toEqual([
      { a: first, p: '100.00000000', q: '1.00000000', f: first, l: first, T: mine[0].time, m: false, M: true },
      { a: second, p: '101.00000000', q: '0.50000000', f: second, l: second, T: mine[1].time, m: false, M: true },
    ]);
    expect((await get('/aggTrades', `symbol=BTCUSDT&startTime=${mine[1].time}&endTime=${mine[1].time}`)).body.map((x: any) => x.a)).toContain(second);
    expect((await get('/aggTrades', 'symbol=BTCUSDT&limit=1')).body.map((x: any) => x.a)).toEqual([second]);
    expect((await get('/historicalTrades', `symbol=BTCUSDT&fromId=${second}`)).body.map((x: any) => x.id)).toEqual([second]);

    const avg = await get('/avgPrice', 'symbol=BTCUSDT');
    expect(avg.body).toEqual({ mins: 5, price: expect.stringMatching(/^\d+\.\d{8}$/), closeTime: mine[1].time });
  });

  it("has a resting order's maker fill and a native market order's fills", async () => {
    await t.freshBooks();
    const raw = await connect('/ws/solusdt@trade');
    const { id, key } = await trader('maker');
    const rest = await place(key, { symbol: 'SOLUSDT', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '2', price: '149' });
    expect(rest.body.status).toBe('NEW');
    await publishAndWait(t.nc, t.api, book('SOLUSDT', [['148.50', '100']], [['148.90', '100']]));
    // the resting BUY filled: its buyer is the maker
    await eventually(() => expect(raw.messages.some((m) => m.q === '2.00000000' && m.m === true)).toBe(true));
    const maker = raw.messages.find((m) => m.q === '2.00000000' && m.m === true);
    const tape = (await get('/trades', 'symbol=SOLUSDT&limit=5')).body as any[];
    expect(tape.find((x) => x.id === maker.t)).toMatchObject({ qty: '2.00000000', isBuyerMaker: true, price: maker.p });

    await t.freshBooks();
    expect((await t.order(id, 'SOLUSDT', 'SELL', '1')).status).toBe(201);
    const after = (await get('/trades', 'symbol=SOLUSDT&limit=1')).body as any[];
    // a taker SELL hit the bid: the buyer was the maker
    expect(after).toEqual([expect.objectContaining({ id: maker.t + 1, price: '149.50000000', qty: '1.00000000', isBuyerMaker: true })]);
  });

  it('counts the fills in klines, ticker/24hr and their streams, which agree with REST', async () => {
    await t.freshBooks();
    const streams = await connect('/stream?streams=ethusdt@kline_1m/ethusdt@ticker/ethusdt@miniTicker/!miniTicker@arr');
    await publishAndWait(t.nc, t.api, book('ETHUSDT', [['3499.00', '10']], [['3500.00', '10']]));
    const { key } = await trader('volume', '100000');
    expect((await place(key, { symbol: 'ETHUSDT', side: 'BUY', type: 'MARKET', quantity: '0.5' })).status).toBe(200);
    // the candles take the trade from the tape's tail, a moment after the order's answer
    let row: any[] | undefined;
    await eventually(async () => {
      [row] = (await get('/klines', 'symbol=ETHUSDT&interval=1m&limit=1')).body as any[][];
      expect(row?.slice(5)).toEqual(['0.50000000', expect.any(Number), '1750.00000000', 1, '0.50000000', '1750.00000000', '0']);
    });
    const ticker = (await get('/ticker/24hr', 'symbol=ETHUSDT')).body;
    expect(ticker).toMatchObject({ volume: '0.50000000', quoteVolume: '1750.00000000', count: 1, lastQty: '0.50000000', weightedAvgPrice: '3500.00000000' });
    expect(ticker.firstId).toBe(ticker.lastId);
    await eventually(() => expect(streams.messages.some((m) => m.stream === 'ethusdt@kline_1m' && m.data.k.n === 1)).toBe(true));
    const kline = streams.messages.filter((m) => m.stream === 'ethusdt@kline_1m' && m.data.k.n === 1).pop().data;
    expect(kline).toEqual({
      e: 'kline',
      E: expect.any(Number),
      s: 'ETHUSDT',
      k: {
        t: row?.[0],
        T: row?.[6],
        s: 'ETHUSDT',
        i: '1m',
        f: ticker.firstId,
        L: ticker.lastId,
        o: row?.[1],
        c: row?.[4],
        h: row?.[2],
        l: row?.[3],
        v: '0.50000000',
        n: 1,
        x: false,
        q: '1750.00000000',
        V: '0.50000000',
        Q: '1750.00000000',
        B: '0',
      },
    });
    await eventually(() => expect(streams.messages.some((m) => m.stream === 'ethusdt@ticker' && m.data.n === 1)).toBe(true));
    const tick = streams.messages.filter((m) => m.stream === 'ethusdt@ticker' && m.data.n === 1).pop().data;
    expect(tick).toMatchObject({
      e: '24hrTicker',
      s: 'ETHUSDT',
      v: '0.50000000',
      q: '1750.00000000',
      n: 1,
      F: ticker.firstId,
      L: ticker.lastId,
      c: ticker.lastPrice,
    });
    await eventually(() => expect(streams.messages.some((m) => m.stream === 'ethusdt@miniTicker' && m.data.v === '0.50000000')).toBe(true));
    await eventually(() => expect(streams.messages.some((m) => m.stream === '!miniTicker@arr' && m.data.some((x: any) => x.s === 'ETHUSDT'))).toBe(true));
  });

  it('subscribes the served streams of a SUBSCRIBE that also names one it does not serve', async () => {
    const c = await connect('/ws/0');
    c.send({ method: 'SUBSCRIBE', params: ['btcusdt@trade', 'btcusdt@depth@100ms', 'dogeusdt@trade'], id: 1 });
    c.send({ method: 'LIST_SUBSCRIPTIONS', id: 2 });
    await eventually(() => expect(c.messages.filter((m) => 'id' in m)).toHaveLength(2));
    expect(c.messages.find((m) => m.id === 1)).toMatchObject({ error: { code: 2 } });
    expect(c.messages.find((m) => m.id === 2)?.result.sort()).toEqual(['btcusdt@depth@100ms', 'btcusdt@trade']);
  });

  it("refuses bad parameters with Binance's codes", async () => {
    expectCode(await get('/trades', 'symbol=DOGEUSDT'), 400, -1121);
    expectCode(await get('/trades', ''), 400, -1102);
    expectCode(await get('/trades', 'symbol=BTCUSDT&limit=x'), 400, -1100);
    expectCode(await get('/trades', 'symbol=BTCUSDT&limit=1001'), 400, -1130);
    expectCode(await get('/trades', 'symbol=BTCUSDT&limit=1&limit=2'), 400, -1101);
    expectCode(await get('/aggTrades', 'symbol=BTCUSDT&fromId=1&startTime=1'), 400, -1128);
    expectCode(await get('/aggTrades', 'symbol=BTCUSDT&startTime=2&endTime=1'), 400, -1130);
    expectCode(await get('/historicalTrades', 'symbol=BTCUSDT&fromId=abc'), 400, -1100);
    expectCode(await get('/avgPrice', 'symbol=BTCUSDT&limit=1'), 400, -1104);
  });
});
