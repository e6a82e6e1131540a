/**
 * A Binance-shaped route with a form body, as the order routes are (docs/exchange-api.md#binance-signing):
 * parameters in the query and the body, the signature over the query followed by the body, a name
 * in both taken from the query, duplicates and unknown names refused, weights on every answer.
 */
import { createHmac } from 'node:crypto';
import uws from 'uWebSockets.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryApiKeyStore } from '../../adapters/store/api-keys/memory.ts';
import { createMemoryCandleStore } from '../../adapters/store/candles/memory.ts';
import { createMemoryExchangeStore } from '../../adapters/store/exchange/memory.ts';
import { log } from '../../kernel/log.ts';
import { BookSequence } from '../../runtime/binance/book-sequence.ts';
import { CandleRecorder } from '../../runtime/binance/candles.ts';
import { createMemoryTapeStore } from '../../adapters/store/tape/memory.ts';
import { TradeTape } from '../../runtime/binance/trade-tape.ts';
import type { BinanceContext } from '../../runtime/binance/context.ts';
import { RequestWeights } from '../../runtime/binance/request-weight.ts';
import { OrderCounts } from '../../runtime/binance/order-counts.ts';
import { createOrderEngine } from '../../runtime/exchange/engine/engine.ts';
import { bookCache } from '../../runtime/exchange/book-cache.ts';
import { EXCHANGE_ERRORS } from '../exchange/handle.ts';
import { listenExclusive } from '../http/listen.ts';
import * as v from 'valibot';
import { createRouter, defineRoute } from '../http/router.ts';
import { json } from '../openapi/document.ts';
import { binanceRoute } from './route.ts';

const SECRET = 'NhqPtmdSJYdKjVHjA7PZj4Mge3R5YNiP1e3UZjInClVN65XAbvqqM6A7H5fATj0j';
const API_KEY = 'vmPUZE6mv9SD5VNHk4HlWFsOr6aKE2zvsw0MuIgwCIPy6utIco14y7Ju91duEh8A';
let base = '';
let socket: uws.us_listen_socket | undefined;

beforeAll(async () => {
  const keys = createMemoryApiKeyStore();
  await keys.put({ apiKey: API_KEY, accountId: 'acct-1', type: 'HMAC_SHA256', secret: SECRET, label: null, createdAt: new Date().toISOString() });
  const exchange = { store: createMemoryExchangeStore(), books: bookCache(30_000), now: () => new Date(), log };
  const ctx: BinanceContext = {
    exchange,
    keys,
    books: new BookSequence(),
    candles: new CandleRecorder(createMemoryCandleStore(), log),
    tape: new TradeTape(createMemoryTapeStore(), log),
    weights: new RequestWeights(1000),
    engine: createOrderEngine(exchange),
    orderCounts: new OrderCounts(),
  };
  const app = uws.App();
  const router = createRouter(app, { log, errors: EXCHANGE_ERRORS });
  const echo = defineRoute({ method: 'post', path: '/api/v3/echo', summary: 'echo', responses: { 200: json('the parameters', v.unknown()) } });
  binanceRoute(
    router,
    ctx,
    'POST',
    '/api/v3/echo',
    { weight: 1, params: ['symbol', 'side', 'quantity'], signed: true, body: true },
    (p, signer) => ({
      account: signer?.accountId,
      symbol: p.symbol(),
      side: p.required('side'),
      quantity: p.required('quantity'),
    }),
    echo,
  );
  socket = await listenExclusive(app, '127.0.0.1', 0);
  base = `http://127.0.0.1:${uws.us_socket_local_port(socket)}`;
});
afterAll(() => {
  if (socket) uws.us_listen_socket_close(socket);
});

const post = async (query: string, body: string) => {
  const res = await fetch(`${base}/api/v3/echo?${query}`, {
    method: 'POST',
    headers: { 'X-MBX-APIKEY': API_KEY, 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, weight: res.headers.get('x-mbx-used-weight-1m') };
};
const sign = (payload: string) => createHmac('sha256', SECRET).update(payload).digest('hex');

describe('a signed route with a form body', () => {
  it('takes parameters from the query and the body, signed as the query followed by the body', async () => {
    const query = 'symbol=BTCUSDT&side=BUY';
    const body = `quantity=1&timestamp=${Date.now()}`;
    const r = await post(query, `${body}&signature=${sign(query + body)}`);
    expect(r).toEqual({ status: 200, body: { account: 'acct-1', symbol: 'BTCUSDT', side: 'BUY', quantity: '1' }, weight: expect.stringMatching(/^\d+$/) });
  });

  it('takes a name sent in both from the query, and refuses a name sent twice, an unknown name and a signature over other bytes', async () => {
    const query = 'symbol=BTCUSDT&side=SELL';
    const body = `side=BUY&quantity=2&timestamp=${Date.now()}`;
    expect((await post(query, `${body}&signature=${sign(query + body)}`)).body.side).toBe('SELL');
    const twice = `quantity=2&quantity=3&timestamp=${Date.now()}`;
    expect((await post(query, `${twice}&signature=${sign(query + twice)}`)).body).toMatchObject({ code: -1101 });
    const extra = `quantity=2&price=1&timestamp=${Date.now()}`;
    expect((await post(query, `${extra}&signature=${sign(query + extra)}`)).body).toMatchObject({ code: -1104 });
    const other = `quantity=2&timestamp=${Date.now()}`;
    expect(await post(query, `${other}&signature=${sign(`${query}&${other}`)}`)).toMatchObject({ status: 400, body: { code: -1022 } });
  });
});
