/**
 * Unmodified `ccxt.pro.binance` on the user data stream of a running exchange
 * (docs/exchange-api.md#binance-user-data-stream; README, "Trade with your own bot"): with the
 * WebSocket API's URL pointed at `/ws-api/v3`, `watchOrders` and `watchBalance` receive the events
 * of a limit order that rests and then fills when the book moves, with HMAC and Ed25519 keys.
 */
import ccxt from 'ccxt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryExchangeStore } from '../../adapters/store/exchange/memory.ts';
import { ed25519KeyFor, hmacKeyFor } from './binance-support.ts';
import { startInProcess, type InProcessExchange } from './in-process.ts';

let t: InProcessExchange;
const opened: { close(): Promise<unknown> }[] = [];
let ts = Date.now();
/** A SOL book newer than the one before. */
const solBook = (bid: string, ask: string) => ({
  symbol: 'SOLUSDT' as const,
  bids: [[bid, '10']] as [string, string][],
  asks: [[ask, '10']] as [string, string][],
  ts: (ts = Math.max(ts + 1, Date.now())),
});

beforeAll(async () => {
  t = await startInProcess(createMemoryExchangeStore());
  t.feed.push(solBook('149', '150'));
});
afterAll(async () => {
  for (const e of opened) await e.close();
  await t?.exchange.stop();
});

/** The configuration the README gives a bot, with the WebSocket API's URL. */
const config = (credentials: { apiKey: string; secret: string }) => ({
  ...credentials,
  urls: {
    api: {
      public: `${t.baseUrl}/api/v3`,
      private: `${t.baseUrl}/api/v3`,
      ws: { spot: `${t.wsUrl}/ws`, 'ws-api': { spot: `${t.wsUrl}/ws-api/v3` } },
    },
  },
  options: { fetchMarkets: { types: ['spot'] }, fetchCurrencies: false, fetchMargins: false },
});

describe('ccxt.pro.binance user data', () => {
  it.each(['HMAC_SHA256', 'ED25519'] as const)('watchOrders and watchBalance follow a limit order that rests and then fills (%s key)', async (type) => {
    t.feed.push(solBook('149', '150'));
    const id = await t.openAccount(`ccxt-uds-${type}`, '1000');
    const credentials =
      type === 'HMAC_SHA256'
        ? await hmacKeyFor(t.api, id).then((k) => ({ apiKey: k.apiKey, secret: k.secretKey }))
        : await ed25519KeyFor(t.api, id).then((k) => ({ apiKey: k.apiKey, secret: k.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() }));
    const ex = new ccxt.pro.binance(config(credentials));
    opened.push(ex);
    // ccxt asks for this once before a plain ws:// URL (README: Trade with your own bot)
    await ex.loadHttpProxyAgent();
    await ex.loadMarkets();
    // the subscription is made (userDataStream.subscribe.signature answered) before the order is placed
    await ex.authenticate();
    const orders = ex.watchOrders('SOL/USDT');
    const balance = ex.watchBalance();

    const placed = await t.exchange.engine.place({ accountId: id, symbol: 'SOLUSDT', side: 'BUY', type: 'LIMIT', quantity: '2', price: '149' });
    if (!placed.ok) throw new Error(placed.message);
    const [open] = await orders;
    // the order's integer id (docs/orders.md#ids): a JSON number in the report, ccxt's string of it
    expect(open?.info.i).toBe(1);
    expect(open).toMatchObject({
      id: '1',
      symbol: 'SOL/USDT',
      type: 'limit',
      side: 'buy',
      status: 'open',
      price: 149,
      amount: 2,
      filled: 0,
    });
    const locked = await balance;
    expect(locked.USDT).toMatchObject({ used: 298.298, free: 701.702 });

    // the ask drops to 149: the order fills there as a maker (each watch answers the next update: asked for before the book moves)
    const nextOrders = ex.watchOrders('SOL/USDT');
    const nextBalance = ex.watchBalance();
    t.feed.push(solBook('148', '148.5'));
    const [closed] = await nextOrders;
    expect(closed).toMatchObject({ id: '1', status: 'closed', filled: 2, remaining: 0, average: 149, cost: 298 });
    expect(closed?.fee).toMatchObject({ currency: 'USDT', cost: 0.298 });
    const after = await nextBalance;
    expect(after.USDT).toMatchObject({ free: 701.702, used: 0 });
    expect(after.SOL).toMatchObject({ free: 2, used: 0 });

    // an order placed through the native API moves the balance it watches (it is not an order of this surface)
    const nativeBalance = ex.watchBalance();
    t.feed.push(solBook('149', '150'));
    expect((await t.api.post(`/api/v1/accounts/${id}/orders`, { symbol: 'SOLUSDT', side: 'BUY', qty: '1' })).status).toBe(201);
    expect((await nativeBalance).SOL).toMatchObject({ free: 3, used: 0 });
  });
});
