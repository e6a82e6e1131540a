/**
 * Unmodified CCXT against a running exchange (docs/exchange-api.md#binance-spot-api; README,
 * "Trade with your own bot"): `ccxt.binance` with the options that keep it on /api/v3 (market
 * data, balance, and orders: market, resting limit filled when the book moves, IOC, cancel, reads,
 * trades, and its error classes), and `ccxt.pro.binance` watching an order book over the diff stream.
 */
import ccxt from 'ccxt';
import { afterAll, describe, expect, it } from 'vitest';
import { publishBook } from '../../adapters/feed/publisher.ts';
import { ed25519KeyFor, hmacKeyFor } from './binance-support.ts';
import { exchangeForSuite } from './harness.ts';
import { book } from './support.ts';
import { eventually } from '../support/eventually.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const t = exchangeForSuite();
const opened: { close(): Promise<unknown> }[] = [];
afterAll(async () => {
  for (const e of opened) await e.close();
});

/** The configuration the README gives a bot. */
const config = (base: string, credentials: { apiKey?: string; secret?: string } = {}) => ({
  ...credentials,
  urls: { api: { public: `${base}/api/v3`, private: `${base}/api/v3`, ws: { spot: `${base.replace('http', 'ws')}/ws` } } },
  options: { fetchMarkets: { types: ['spot'] }, fetchCurrencies: false, fetchMargins: false },
});

describe('ccxt.binance against the exchange', () => {
  it('loads markets, reads time, tickers, the order book and candles', async () => {
    const ex = new ccxt.binance(config(t.baseUrl));
    const markets = await ex.loadMarkets();
    expect(Object.keys(markets).sort()).toEqual(['BTC/USDT', 'ETH/USDT', 'SOL/USDT']);
    expect(markets['BTC/USDT']).toMatchObject({ id: 'BTCUSDT', base: 'BTC', quote: 'USDT', spot: true, active: true });
    expect(markets['BTC/USDT']?.limits.amount?.min).toBe(0.00001);
    expect(markets['BTC/USDT']?.limits.cost?.min).toBe(5);
    expect(markets['BTC/USDT']?.precision.price).toBe(0.01);
    expect(Math.abs(((await ex.fetchTime()) ?? 0) - Date.now())).toBeLessThan(5_000);
    const ticker = await ex.fetchTicker('SOL/USDT');
    expect(ticker).toMatchObject({ symbol: 'SOL/USDT', bid: 149.5, ask: 150, last: 149.75 });
    const tickers = await ex.fetchTickers(['BTC/USDT', 'SOL/USDT']);
    expect(Object.keys(tickers).sort()).toEqual(['BTC/USDT', 'SOL/USDT']);
    const ob = await ex.fetchOrderBook('BTC/USDT', 5);
    expect(ob.bids).toEqual([
      [99, 1],
      [98, 2],
    ]);
    expect(ob.asks[0]).toEqual([100, 1]);
    expect(ob.nonce).toBeGreaterThan(0);
    const candles = await ex.fetchOHLCV('BTC/USDT', '1m', undefined, 10);
    expect(candles.length).toBeGreaterThanOrEqual(1);
    expect(candles[candles.length - 1]?.[4]).toBe(99.5);
    await expect(ex.fetchTicker('DOGE/USDT')).rejects.toThrow(ccxt.BadSymbol);
    // the exchange's own -1121, through ccxt's implicit API (no market check of ccxt's in between)
    await expect(ex.publicGetTickerPrice({ symbol: 'DOGEUSDT' })).rejects.toThrow(/-1121/);
    await expect(ex.publicGetTickerPrice({ symbol: 'DOGEUSDT' })).rejects.toThrow(ccxt.BadSymbol);
  });

  it('reads the balance of the key it signs with, and maps Binance errors to its own', async () => {
    const id = await t.openAccount('ccxt-bot', '2500');
    expect((await t.order(id, 'SOLUSDT', 'BUY', '2')).status).toBe(201);
    const key = await hmacKeyFor(t.api, id);
    const ex = new ccxt.binance(config(t.baseUrl, { apiKey: key.apiKey, secret: key.secretKey }));
    const balance = await ex.fetchBalance();
    expect(balance.USDT).toEqual({ free: 2199.7, used: 0, total: 2199.7 });
    expect(balance.SOL).toMatchObject({ free: 2, used: 0, total: 2 });

    // an Ed25519 key: ccxt signs with the private key given as the secret (PEM)
    const ed = await ed25519KeyFor(t.api, id);
    const edBot = new ccxt.binance(config(t.baseUrl, { apiKey: ed.apiKey, secret: ed.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() }));
    expect((await edBot.fetchBalance()).SOL?.total).toBe(2);

    const badSecret = new ccxt.binance(config(t.baseUrl, { apiKey: key.apiKey, secret: 'x'.repeat(64) }));
    await expect(badSecret.fetchBalance()).rejects.toThrow(ccxt.AuthenticationError);
    const unknownKey = new ccxt.binance(config(t.baseUrl, { apiKey: 'U'.repeat(64), secret: key.secretKey }));
    await expect(unknownKey.fetchBalance()).rejects.toThrow(ccxt.AuthenticationError);
    // a clock a minute behind, beyond the 10 s recvWindow ccxt sends
    const stale = new ccxt.binance(config(t.baseUrl, { apiKey: key.apiKey, secret: key.secretKey }));
    stale.nonce = () => Date.now() - 60_000;
    await expect(stale.fetchBalance()).rejects.toThrow(ccxt.InvalidNonce);
  });
});

describe('ccxt.binance trading on the exchange', () => {
  it('places market, resting limit and IOC orders, reads them and their trades, cancels, as on Binance', async () => {
    await t.freshBooks();
    const id = await t.openAccount('ccxt-trader', '5000');
    const key = await hmacKeyFor(t.api, id);
    const ex = new ccxt.binance(config(t.baseUrl, { apiKey: key.apiKey, secret: key.secretKey }));

    const market = await ex.createOrder('BTC/USDT', 'market', 'buy', 1.5);
    expect(market).toMatchObject({ status: 'closed', filled: 1.5, amount: 1.5, cost: 150.5, average: expect.closeTo(100.333, 3) });
    expect(market.trades).toHaveLength(2);
    // Binance's integer ids: JSON numbers, that ccxt reads as it reads Binance's (docs/orders.md#ids)
    expect(market.info.orderId).toBe(1);
    expect(market.id).toBe('1');
    expect(market.trades.map((x) => x.id)).toEqual(['1', '2']);

    const resting = await ex.createOrder('SOL/USDT', 'limit', 'buy', 2, 149);
    expect(resting).toMatchObject({ status: 'open', price: 149, amount: 2, filled: 0, remaining: 2, timeInForce: 'GTC' });
    expect((await ex.fetchOpenOrders('SOL/USDT')).map((o) => o.id)).toEqual([resting.id]);
    expect((await ex.fetchBalance()).USDT).toMatchObject({ used: 298.298 });
    publishBook(t.nc, book('SOLUSDT', [['148.50', '100']], [['148.80', '100']], Date.now()));
    const filled = await eventually(
      'the resting order filled',
      async () => {
        const o = await ex.fetchOrder(String(resting.id), 'SOL/USDT');
        return o.status === 'closed' ? o : null;
      },
      10_000,
      50,
    );
    expect(filled).toMatchObject({ filled: 2, remaining: 0, cost: 298, average: 149 });
    const trades = await ex.fetchMyTrades('SOL/USDT');
    expect(trades).toHaveLength(1);
    expect(trades[0]).toMatchObject({
      id: '3',
      order: '2',
      side: 'buy',
      price: 149,
      amount: 2,
      cost: 298,
      takerOrMaker: 'maker',
      fee: { cost: 0.298, currency: 'USDT' },
    });
    expect(await ex.fetchOpenOrders('SOL/USDT')).toEqual([]);
    await t.freshBooks();

    const ioc = await ex.createOrder('BTC/USDT', 'limit', 'buy', 2, 100, { timeInForce: 'IOC' });
    expect(ioc).toMatchObject({ status: 'expired', filled: 1, amount: 2, timeInForce: 'IOC' });

    const toCancel = await ex.createOrder('SOL/USDT', 'limit', 'buy', 1, 140);
    expect(await ex.cancelOrder(String(toCancel.id), 'SOL/USDT')).toMatchObject({ id: toCancel.id, status: 'canceled' });
    expect((await ex.fetchOrder(String(toCancel.id), 'SOL/USDT')).status).toBe('canceled');
    const orders = await ex.fetchOrders('SOL/USDT');
    expect(orders.map((o) => [o.id, o.status])).toEqual([
      [resting.id, 'closed'],
      [toCancel.id, 'canceled'],
    ]);
    expect((await ex.fetchOrders('BTC/USDT')).map((o) => o.status)).toEqual(['closed', 'expired']);
    await ex.createOrder('SOL/USDT', 'limit', 'buy', 1, 141);
    await ex.createOrder('SOL/USDT', 'limit', 'buy', 1, 142, { postOnly: true });
    expect((await ex.cancelAllOrders('SOL/USDT')).map((o) => o.status)).toEqual(['canceled', 'canceled']);
    expect((await ex.fetchBalance()).USDT).toMatchObject({ used: 0 });
    await t.freshBooks();
  });

  it("raises ccxt's InsufficientFunds, OrderNotFound and InvalidOrder as Binance's answers do", async () => {
    const id = await t.openAccount('ccxt-refused', '100');
    const key = await hmacKeyFor(t.api, id);
    const ex = new ccxt.binance(config(t.baseUrl, { apiKey: key.apiKey, secret: key.secretKey }));
    await expect(ex.createOrder('SOL/USDT', 'limit', 'buy', 1, 140)).rejects.toThrow(ccxt.InsufficientFunds);
    await expect(ex.createOrder('SOL/USDT', 'market', 'sell', 1)).rejects.toThrow(ccxt.InsufficientFunds);
    await expect(ex.fetchOrder('999999', 'SOL/USDT')).rejects.toThrow(ccxt.OrderNotFound);
    await expect(ex.cancelOrder('999999', 'SOL/USDT')).rejects.toThrow(ccxt.OrderNotFound);
    // an id that is no integer is malformed (-1100), as on Binance
    await expect(ex.fetchOrder('00000000-0000-4000-8000-000000000000', 'SOL/USDT')).rejects.toThrow(ccxt.BadRequest);
    // LOT_SIZE: more than the 9000 BTC a limit order may ask
    await expect(ex.createOrder('BTC/USDT', 'limit', 'buy', 9001, 0.01)).rejects.toThrow(ccxt.InvalidOrder);
    await expect(ex.createOrder('BTC/USDT', 'limit', 'buy', 9001, 0.01)).rejects.toThrow(/LOT_SIZE/);
    // LIMIT_MAKER that would take
    await expect(ex.createOrder('SOL/USDT', 'limit', 'buy', 0.1, 151, { postOnly: true })).rejects.toThrow(ccxt.InvalidOrder);
  });
});

describe('ccxt.binance reads the public trades', () => {
  it("fetches the venue's fills with fetchTrades (aggTrades by default, trades when asked)", async () => {
    const id = await t.openAccount('ccxt-tape', '5000');
    await t.freshBooks();
    expect((await t.order(id, 'SOLUSDT', 'BUY', '2')).status).toBe(201);
    const ex = new ccxt.binance(config(t.baseUrl));
    const trades = await ex.fetchTrades('SOL/USDT');
    const last = trades[trades.length - 1];
    expect(last).toMatchObject({ symbol: 'SOL/USDT', side: 'buy', price: 150, amount: 2, cost: 300, takerOrMaker: undefined });
    expect(Number(last?.id)).toBeGreaterThan(0);
    const since = await ex.fetchTrades('SOL/USDT', (last?.timestamp ?? 0) - 1);
    expect(since.map((x) => x.id)).toContain(last?.id);
    const recent = await ex.fetchTrades('SOL/USDT', undefined, 1, { fetchTradesMethod: 'publicGetTrades' });
    expect(recent.map((x) => [x.id, x.price, x.amount, x.side])).toEqual([[last?.id, 150, 2, 'buy']]);
  });
});

describe('ccxt.pro.binance against the exchange', () => {
  it('watches an order book over the diff stream, synced with REST depth', async () => {
    const ex = new ccxt.pro.binance(config(t.baseUrl));
    opened.push(ex);
    // ccxt asks for this once before a plain ws:// URL (README: Trade with your own bot)
    await ex.loadHttpProxyAgent();
    const first = await ex.watchOrderBook('BTC/USDT');
    expect(first.bids[0]).toEqual([99, 1]);
    let ts = Date.now();
    for (let i = 1; i <= 5; i++) {
      publishBook(
        t.nc,
        book(
          'BTCUSDT',
          [
            [`${99 + i / 100}`, `${i}`],
            ['98.00', '2'],
          ],
          [
            ['100.00', '1'],
            ['101.00', `${i}`],
          ],
          (ts = Math.max(ts + 1, Date.now())),
        ),
      );
      await sleep(30);
    }
    let seen = first;
    const deadline = Date.now() + 5_000;
    while (!(seen.bids[0]?.[0] === 99.05 && seen.asks[1]?.[1] === 5) && Date.now() < deadline) seen = await ex.watchOrderBook('BTC/USDT');
    expect(seen.bids.slice(0, 2)).toEqual([
      [99.05, 5],
      [98, 2],
    ]);
    expect(seen.asks.slice(0, 2)).toEqual([
      [100, 1],
      [101, 5],
    ]);
    // the bid levels the later books replaced are gone, not left behind
    expect(seen.bids.some(([p]) => p === 99.01)).toBe(false);
  });

  it("watches the venue's trades as fills are made", async () => {
    const ex = new ccxt.pro.binance(config(t.baseUrl));
    opened.push(ex);
    await ex.loadHttpProxyAgent();
    const id = await t.openAccount('ccxt-watcher', '5000');
    await t.freshBooks();
    const watching = ex.watchTrades('SOL/USDT');
    // the subscription is live once ccxt has sent it; a fill made after that arrives
    await sleep(300);
    expect((await t.order(id, 'SOLUSDT', 'BUY', '1')).status).toBe(201);
    const seen = await watching;
    expect(seen[seen.length - 1]).toMatchObject({ symbol: 'SOL/USDT', side: 'buy', price: 150, amount: 1 });
  });
});
