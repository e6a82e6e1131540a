/**
 * The Binance Spot surface checked rule by rule against Binance's documented behaviour, black-box
 * (docs/exchange-api.md#binance-spot-api): one exchange process on a private Redis and NATS, every
 * answer's status, code, exact message, headers and JSON types as Binance's reference gives them,
 * for signing, limits, orders, market data, the market streams' control messages and the
 * WebSocket API's envelope and user data events.
 */
import { describe, expect, it } from 'vitest';
import { collect, type Collector } from '../support/ws-collector.ts';
import { binanceCall, expectCode, orderClient, signatureOf, signedCall, type Signing } from './binance-support.ts';
import { exchangeForSuite } from './harness.ts';
import { subscribeParams } from './in-process.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const t = exchangeForSuite();
const { trader, place, call } = orderClient(t);
const get = (path: string, query = '') => binanceCall(t.baseUrl, 'GET', `/api/v3${path}`, query);
const P8 = /^\d+\.\d{8}$/;
const MSG = {
  mandatory: (p: string) => `Mandatory parameter '${p}' was not sent, was empty/null, or malformed.`,
  notRequired: (p: string) => `Parameter '${p}' sent when not required.`,
  precision: (p: string) => `Parameter '${p}' has too much precision.`,
};
/** A signed GET of `account` with the query as given (`timestamp` and the signature not added). */
const rawAccount = (key: Signing, query: string) =>
  binanceCall(t.baseUrl, 'GET', '/api/v3/account', `${query}&signature=${signatureOf(key, query)}`, '', { 'X-MBX-APIKEY': key.apiKey });

describe('SIGNED requests', () => {
  it('refuses a missing or malformed key 401 -2014 and an unknown key 401 -2015', async () => {
    const q = `timestamp=${Date.now()}`;
    expectCode(await binanceCall(t.baseUrl, 'GET', '/api/v3/account', q), 401, -2014, 'API-key format invalid.');
    expectCode(await binanceCall(t.baseUrl, 'GET', '/api/v3/account', q, '', { 'X-MBX-APIKEY': 'not/a key' }), 401, -2014, 'API-key format invalid.');
    const unknown = { apiKey: 'U'.repeat(64), secretKey: 'x' };
    expectCode(await signedCall(t.baseUrl, 'GET', '/api/v3/account', unknown), 401, -2015, 'Invalid API-key, IP, or permissions for action.');
  });

  it('refuses a missing timestamp or signature -1102 and a bad signature -1022, each 400', async () => {
    const { key } = await trader('sign-missing');
    expectCode(await rawAccount(key, 'recvWindow=5000'), 400, -1102, MSG.mandatory('timestamp'));
    const unsigned = await binanceCall(t.baseUrl, 'GET', '/api/v3/account', `timestamp=${Date.now()}`, '', { 'X-MBX-APIKEY': key.apiKey });
    expectCode(unsigned, 400, -1102, MSG.mandatory('signature'));
    const forged = await binanceCall(t.baseUrl, 'GET', '/api/v3/account', `timestamp=${Date.now()}&signature=${'ab'.repeat(32)}`, '', {
      'X-MBX-APIKEY': key.apiKey,
    });
    expectCode(forged, 400, -1022, 'Signature for this request is not valid.');
  });

  it('applies recvWindow both ways: older than the window or 1000 ms ahead is -1021; past 60000 is -1131', async () => {
    const { key } = await trader('sign-time');
    expectCode(await rawAccount(key, `timestamp=${Date.now() - 6_000}`), 400, -1021, 'Timestamp for this request is outside of the recvWindow.');
    expect((await rawAccount(key, `timestamp=${Date.now() - 6_000}&recvWindow=10000`)).status).toBe(200);
    expectCode(await rawAccount(key, `timestamp=${Date.now() + 1_500}`), 400, -1021, "Timestamp for this request was 1000ms ahead of the server's time.");
    expect((await rawAccount(key, `timestamp=${Date.now() + 500}`)).status).toBe(200);
    expectCode(await rawAccount(key, `timestamp=${Date.now()}&recvWindow=60001`), 400, -1131, 'recvWindow must be less than 60000');
    expect((await rawAccount(key, `timestamp=${Date.now()}&recvWindow=60000`)).status).toBe(200);
  });

  it('refuses an unknown parameter -1104 and a parameter sent twice -1101; a name in query and body is taken from the query', async () => {
    const { key } = await trader('sign-params');
    expectCode(
      await rawAccount(key, `timestamp=${Date.now()}&foo=1`),
      400,
      -1104,
      "Not all sent parameters were read; read '2' parameter(s) but was sent '3'.",
    );
    const now = Date.now();
    expectCode(await rawAccount(key, `timestamp=${now}&timestamp=${now}`), 400, -1101, 'Duplicate values for a parameter detected.');
    // Binance's example 3: the signature covers the query then the body, with no '&' between
    const query = 'symbol=BTCUSDT&side=BUY&type=MARKET&quantity=0.5';
    const body = `symbol=NOPE&timestamp=${Date.now()}`;
    const r = await binanceCall(t.baseUrl, 'POST', '/api/v3/order/test', query, `${body}&signature=${signatureOf(key, query + body)}`, {
      'X-MBX-APIKEY': key.apiKey,
    });
    expect({ status: r.status, body: r.body }).toEqual({ status: 200, body: {} });
  });
});

describe('limits', () => {
  it('puts X-MBX-USED-WEIGHT-1M on every answer, errors included, and the order counts on order answers', async () => {
    await t.freshBooks();
    for (const r of [await get('/time'), await get('/depth', 'symbol=NOPE'), await get('/klines', 'symbol=BTCUSDT')]) {
      expect(r.headers.get('x-mbx-used-weight-1m')).toMatch(/^\d+$/);
    }
    const { key } = await trader('limits-orders');
    const r = await place(key, { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.5' });
    expect(r.status).toBe(200);
    expect([r.headers.get('x-mbx-order-count-10s'), r.headers.get('x-mbx-order-count-1d')]).toEqual(['1', '1']);
  });
});

describe('POST /api/v3/order refusals', () => {
  const limit = (over: Record<string, string>) => ({
    symbol: 'BTCUSDT',
    side: 'BUY',
    type: 'LIMIT',
    timeInForce: 'GTC',
    quantity: '0.1',
    price: '90',
    ...over,
  });

  it('names the failed filter: PRICE_FILTER, LOT_SIZE, MARKET_LOT_SIZE, NOTIONAL (-1013)', async () => {
    const { key } = await trader('filters');
    expectCode(await place(key, limit({ price: '90.005' })), 400, -1013, 'Filter failure: PRICE_FILTER');
    expectCode(await place(key, limit({ quantity: '0.000015' })), 400, -1013, 'Filter failure: LOT_SIZE');
    expectCode(await place(key, { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '124' }), 400, -1013, 'Filter failure: MARKET_LOT_SIZE');
    expectCode(await place(key, limit({ quantity: '0.01' })), 400, -1013, 'Filter failure: NOTIONAL');
  });

  it('refuses more fraction digits than the asset precision (8) with -1111, before the filters', async () => {
    const { key } = await trader('precision');
    expectCode(await place(key, limit({ quantity: '0.123456789' })), 400, -1111, MSG.precision('quantity'));
    expectCode(await place(key, limit({ price: '90.000000001' })), 400, -1111, MSG.precision('price'));
    const byQuote = { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quoteOrderQty: '50.123456789' };
    expectCode(await place(key, byQuote), 400, -1111, MSG.precision('quoteOrderQty'));
    // trailing zeros are not precision
    expect((await place(key, limit({ quantity: '0.1000000000' }))).status).toBe(200);
  });

  it('refuses bad values and parameter combinations with Binance codes and messages', async () => {
    const { key } = await trader('params');
    const legal = '^([0-9]{1,20})(\\.[0-9]{1,20})?$';
    expectCode(await place(key, limit({ quantity: '1e-1' })), 400, -1100, `Illegal characters found in parameter 'quantity'; legal range is '${legal}'.`);
    const { timeInForce: _tif, ...noTif } = limit({});
    expectCode(await place(key, noTif), 400, -1102, MSG.mandatory('timeInForce'));
    const { price: _price, ...noPrice } = limit({});
    expectCode(await place(key, noPrice), 400, -1102, MSG.mandatory('price'));
    const market = { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET' };
    expectCode(await place(key, market), 400, -1102, "Param 'quantity' or 'quoteOrderQty' must be sent, but both were empty/null!");
    expectCode(await place(key, { ...market, quantity: '0.1', timeInForce: 'GTC' }), 400, -1106, MSG.notRequired('timeInForce'));
    expectCode(await place(key, { ...market, quantity: '0.1', price: '100' }), 400, -1106, MSG.notRequired('price'));
    const maker = { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT_MAKER', quantity: '0.1', price: '90' };
    expectCode(await place(key, { ...maker, timeInForce: 'GTC' }), 400, -1106, MSG.notRequired('timeInForce'));
    expectCode(await place(key, limit({ timeInForce: 'GTX' })), 400, -1115, 'Invalid timeInForce.');
    expectCode(await place(key, limit({ type: 'BRACKET' })), 400, -1116, 'Invalid orderType.');
    expectCode(await place(key, limit({ side: 'HOLD' })), 400, -1117, 'Invalid side.');
    expectCode(await place(key, limit({ symbol: 'NOPEUSDT' })), 400, -1121, 'Invalid symbol.');
  });

  it('refuses in the engine with -2010: insufficient balance, a LIMIT_MAKER that would take, a client order id already used', async () => {
    await t.freshBooks();
    const { key } = await trader('engine-refusals', '100');
    expectCode(await place(key, limit({ quantity: '2' })), 400, -2010, 'Account has insufficient balance for requested action.');
    const maker = { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT_MAKER', quantity: '0.1', price: '100' };
    expectCode(await place(key, maker), 400, -2010, 'Order would immediately match and take.');
    expect((await place(key, limit({ newClientOrderId: 'once' }))).status).toBe(200);
    expectCode(await place(key, limit({ newClientOrderId: 'once' })), 400, -2010, 'Duplicate order sent.');
  });
});

describe('order answers', () => {
  const TYPES = {
    symbol: 'string',
    orderId: 'number',
    orderListId: 'number',
    clientOrderId: 'string',
    transactTime: 'number',
    price: 'string',
    origQty: 'string',
    executedQty: 'string',
    origQuoteOrderQty: 'string',
    cummulativeQuoteQty: 'string',
    status: 'string',
    timeInForce: 'string',
    type: 'string',
    side: 'string',
    workingTime: 'number',
    selfTradePreventionMode: 'string',
    fills: 'object',
  };
  const typesOf = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, typeof v]));

  it('answers FULL for LIMIT and MARKET by default, with Binance fields and JSON types; IOC and FOK that cannot fill are EXPIRED', async () => {
    await t.freshBooks();
    const { key } = await trader('answers');
    const market = await place(key, { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.5' });
    expect(typesOf(market.body)).toEqual(TYPES);
    for (const f of ['price', 'origQty', 'executedQty', 'origQuoteOrderQty', 'cummulativeQuoteQty']) expect(market.body[f]).toMatch(P8);
    expect(market.body.fills[0]).toEqual({
      price: '100.00000000',
      qty: '0.50000000',
      commission: expect.stringMatching(P8),
      commissionAsset: 'USDT',
      tradeId: 1,
    });
    for (const tif of ['IOC', 'FOK']) {
      const r = await place(key, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', timeInForce: tif, quantity: '0.1', price: '90' });
      expect(typesOf(r.body)).toEqual(TYPES);
      expect(r.body).toMatchObject({ status: 'EXPIRED', timeInForce: tif, executedQty: '0.00000000', fills: [] });
    }
  });

  it("swaps the ids in a cancel's answer: origClientOrderId is the order's, clientOrderId the cancel's", async () => {
    const { key } = await trader('cancel-ids');
    const placed = await place(key, {
      symbol: 'BTCUSDT',
      side: 'BUY',
      type: 'LIMIT',
      timeInForce: 'GTC',
      quantity: '0.1',
      price: '90',
      newClientOrderId: 'mine',
    });
    const canceled = await call(key, 'DELETE', '/order', { symbol: 'BTCUSDT', orderId: String(placed.body.orderId), newClientOrderId: 'the-cancel' });
    expect(canceled.body).toMatchObject({ origClientOrderId: 'mine', clientOrderId: 'the-cancel', orderId: placed.body.orderId, status: 'CANCELED' });
    expect(typeof canceled.body.transactTime).toBe('number');
    const read = await call(key, 'GET', '/order', { symbol: 'BTCUSDT', orderId: String(placed.body.orderId) });
    expect({ isWorking: typeof read.body.isWorking, time: typeof read.body.time, updateTime: typeof read.body.updateTime }).toEqual({
      isWorking: 'boolean',
      time: 'number',
      updateTime: 'number',
    });
    expectCode(await call(key, 'DELETE', '/order', { symbol: 'BTCUSDT', orderId: String(placed.body.orderId) }), 400, -2011, 'Unknown order sent.');
    expectCode(await call(key, 'GET', '/order', { symbol: 'BTCUSDT', orderId: '999' }), 400, -2013, 'Order does not exist.');
  });
});

describe('market data', () => {
  it('exchangeInfo: symbol, symbols, -1121 for an unknown one, -1122 for a bad symbolStatus, and the ORDERS limits in rateLimits', async () => {
    expect((await get('/exchangeInfo', 'symbol=BTCUSDT')).body.symbols.map((s: any) => s.symbol)).toEqual(['BTCUSDT']);
    const two = await get('/exchangeInfo', `symbols=${encodeURIComponent('["SOLUSDT","ETHUSDT"]')}`);
    expect(two.body.symbols.map((s: any) => s.symbol)).toEqual(['SOLUSDT', 'ETHUSDT']);
    expectCode(await get('/exchangeInfo', 'symbol=NOPEUSDT'), 400, -1121, 'Invalid symbol.');
    expectCode(await get('/exchangeInfo', 'symbolStatus=OPEN'), 400, -1122, 'Invalid symbolStatus.');
    expect((await get('/exchangeInfo', 'symbolStatus=HALT')).body.symbols).toEqual([]);
    expect((await get('/exchangeInfo')).body.rateLimits).toEqual([
      { rateLimitType: 'REQUEST_WEIGHT', interval: 'MINUTE', intervalNum: 1, limit: 6000 },
      { rateLimitType: 'ORDERS', interval: 'SECOND', intervalNum: 10, limit: 100 },
      { rateLimitType: 'ORDERS', interval: 'DAY', intervalNum: 1, limit: 200000 },
    ]);
  });

  it('depth: lastUpdateId a number, string levels, -1220 when symbolStatus does not match', async () => {
    await t.freshBooks();
    const r = await get('/depth', 'symbol=BTCUSDT');
    expect(r.body).toEqual({
      lastUpdateId: expect.any(Number),
      bids: [
        ['99.00000000', '1.00000000'],
        ['98.00000000', '2.00000000'],
      ],
      asks: expect.any(Array),
    });
    expect(r.weight).toBeGreaterThanOrEqual(5);
    expectCode(await get('/depth', 'symbol=BTCUSDT&symbolStatus=BREAK'), 400, -1220, "The symbol's status does not match the requested symbolStatus.");
    expect((await get('/depth', 'symbol=BTCUSDT&symbolStatus=TRADING')).status).toBe(200);
  });

  it('tickers: all, one (an object), several, symbol with symbols -1128, a bad type -1139, MINI fields, symbolStatus', async () => {
    await t.freshBooks();
    expect((await get('/ticker/price')).body.map((p: any) => p.symbol)).toEqual(expect.arrayContaining(['BTCUSDT', 'SOLUSDT']));
    expect((await get('/ticker/bookTicker', 'symbol=BTCUSDT')).body).toEqual({
      symbol: 'BTCUSDT',
      bidPrice: '99.00000000',
      bidQty: '1.00000000',
      askPrice: '100.00000000',
      askQty: '1.00000000',
    });
    const both = `symbol=BTCUSDT&symbols=${encodeURIComponent('["BTCUSDT"]')}`;
    expectCode(await get('/ticker/price', both), 400, -1128, 'Combination of optional parameters invalid.');
    expectCode(await get('/ticker/24hr', 'symbol=BTCUSDT&type=TINY'), 400, -1139, 'Invalid ticker type.');
    const mini = await get('/ticker/24hr', 'symbol=BTCUSDT&type=MINI');
    expect(Object.keys(mini.body).sort()).toEqual(
      ['symbol', 'openPrice', 'highPrice', 'lowPrice', 'lastPrice', 'volume', 'quoteVolume', 'openTime', 'closeTime', 'firstId', 'lastId', 'count'].sort(),
    );
    expectCode(await get('/ticker/price', 'symbol=BTCUSDT&symbolStatus=HALT'), 400, -1220, "The symbol's status does not match the requested symbolStatus.");
    expect((await get('/ticker/bookTicker', 'symbolStatus=HALT')).body).toEqual([]);
    expectCode(await get('/ticker/24hr', 'symbolStatus=OPEN'), 400, -1122, 'Invalid symbolStatus.');
  });

  it('klines: 12-element rows (numbers for times and count, strings for prices), -1120 for 1s, -1102 without interval, timeZone taken', async () => {
    await t.freshBooks();
    const rows = (await get('/klines', 'symbol=BTCUSDT&interval=1m')).body;
    expect(rows.length).toBeGreaterThan(0);
    expect(rows[0].map((x: unknown) => typeof x)).toEqual(['number', ...Array(5).fill('string'), 'number', 'string', 'number', 'string', 'string', 'string']);
    expectCode(await get('/klines', 'symbol=BTCUSDT&interval=1s'), 400, -1120, 'Invalid interval.');
    expectCode(await get('/klines', 'symbol=BTCUSDT'), 400, -1102, MSG.mandatory('interval'));
    for (const zone of ['8', '-1:00', '05:45'])
      expect((await get('/klines', `symbol=BTCUSDT&interval=1h&timeZone=${encodeURIComponent(zone)}`)).status).toBe(200);
    const quarter = (await get('/klines', `symbol=BTCUSDT&interval=1h&timeZone=${encodeURIComponent('05:45')}`)).body;
    // an hour cut at +05:45 opens at a quarter past the UTC hour
    expect(quarter.every((k: number[]) => (k[0]! - 15 * 60_000) % 3_600_000 === 0)).toBe(true);
    expectCode(await get('/klines', 'symbol=BTCUSDT&interval=1m&timeZone=15'), 400, -1130, "Data sent for parameter 'timeZone' is not valid.");
  });
});

/** Sends `request` on a market stream connection and resolves with the answer carrying its id. */
async function control(c: Collector, request: Record<string, unknown>, id: unknown = request.id): Promise<Record<string, unknown>> {
  const before = c.messages.length;
  c.socket.send(JSON.stringify(request));
  await c.until((ms) => ms.slice(before).some((m) => 'id' in m && m.id === id), 5_000);
  return c.messages.slice(before).find((m) => 'id' in m && m.id === id)!;
}

describe('market stream control messages', () => {
  it('SET_PROPERTY / GET_PROPERTY combined: answered {result, id}, events wrapped from then on; bad ones get codes 0, 1, 2', async () => {
    const c = await collect(`${t.baseUrl.replace('http', 'ws')}/ws/btcusdt@bookTicker`);
    try {
      expect(await control(c, { method: 'GET_PROPERTY', params: ['combined'], id: 1 })).toEqual({ result: false, id: 1 });
      expect(await control(c, { method: 'SET_PROPERTY', params: ['combined', true], id: 2 })).toEqual({ result: null, id: 2 });
      expect(await control(c, { method: 'GET_PROPERTY', params: ['combined'], id: 3 })).toEqual({ result: true, id: 3 });
      await sleep(1_000); // at most 5 control messages a second
      expect(await control(c, { method: 'SET_PROPERTY', params: ['combined', 'yes'], id: 4 })).toEqual({
        error: { code: 1, msg: 'Invalid value type: expected Boolean' },
        id: 4,
      });
      expect(await control(c, { method: 'GET_PROPERTY', params: ['colour'], id: 5 })).toEqual({ error: { code: 0, msg: 'Unknown property' }, id: 5 });
      expect(await control(c, { method: 'GET_PROPERTY', params: [7], id: 6 })).toEqual({
        error: { code: 2, msg: 'Invalid request: property name must be a string' },
        id: 6,
      });
      await t.freshBooks();
      await c.until((ms) => ms.some((m) => m.stream === 'btcusdt@bookTicker'), 5_000);
      expect(c.messages.find((m) => m.stream === 'btcusdt@bookTicker')).toEqual({
        stream: 'btcusdt@bookTicker',
        data: expect.objectContaining({ s: 'BTCUSDT' }),
      });
    } finally {
      c.close();
    }
  });

  it('takes the ids Binance takes (a signed integer, a short string, null) and refuses others with code 2', async () => {
    const c = await collect(`${t.baseUrl.replace('http', 'ws')}/ws`);
    try {
      expect(await control(c, { method: 'LIST_SUBSCRIPTIONS', id: -7 })).toEqual({ result: [], id: -7 });
      expect(await control(c, { method: 'LIST_SUBSCRIPTIONS', id: 'abc123' })).toEqual({ result: [], id: 'abc123' });
      expect(await control(c, { method: 'LIST_SUBSCRIPTIONS', id: null })).toEqual({ result: [], id: null });
      expect(await control(c, { method: 'LIST_SUBSCRIPTIONS', id: 1.5 }, null)).toEqual({
        error: { code: 2, msg: 'Invalid request: request ID must be an unsigned integer' },
        id: null,
      });
    } finally {
      c.close();
    }
  });
});

describe('WebSocket API', () => {
  let nextId = 1;
  const request = async (c: Collector, method: string, params?: Record<string, unknown>) => {
    const id = nextId++;
    c.socket.send(JSON.stringify({ id, method, ...(params ? { params } : {}) }));
    await c.until((ms) => ms.some((m) => m.id === id), 5_000);
    return c.messages.find((m) => m.id === id) as Record<string, any>;
  };
  const wsUrl = () => `${t.baseUrl.replace('http', 'ws')}/ws-api/v3`;

  it('answers {id, status, result, rateLimits}; returnRateLimits false (a request or the connection) leaves rateLimits out', async () => {
    const c = await collect(wsUrl());
    const quiet = await collect(`${wsUrl()}?returnRateLimits=false`);
    try {
      const time = await request(c, 'time');
      expect(Object.keys(time).sort()).toEqual(['id', 'rateLimits', 'result', 'status']);
      expect(time.rateLimits).toEqual([{ rateLimitType: 'REQUEST_WEIGHT', interval: 'MINUTE', intervalNum: 1, limit: 6000, count: expect.any(Number) }]);
      expect(await request(c, 'ping', { returnRateLimits: false })).toEqual({ id: expect.any(Number), status: 200, result: {} });
      expect(Object.keys(await request(quiet, 'time')).sort()).toEqual(['id', 'result', 'status']);
      expect(Object.keys(await request(quiet, 'time', { returnRateLimits: true })).sort()).toContain('rateLimits');
      expect(await request(c, 'order.place', {})).toMatchObject({ status: 400, error: { code: -1020, msg: 'This operation is not supported.' } });
    } finally {
      c.close();
      quiet.close();
    }
  });

  it('sends executionReport with every field in its JSON type, outboundAccountPosition and balanceUpdate', async () => {
    await t.freshBooks();
    const { id, key } = await trader('uds-types');
    const c = await collect(wsUrl());
    try {
      const subscribed = await request(c, 'userDataStream.subscribe.signature', subscribeParams(key as { apiKey: string; secretKey: string }));
      expect(subscribed).toMatchObject({ status: 200, result: { subscriptionId: 0 } });
      const placed = await place(key, {
        symbol: 'BTCUSDT',
        side: 'BUY',
        type: 'LIMIT',
        timeInForce: 'GTC',
        quantity: '0.1',
        price: '90',
        newClientOrderId: 'uds',
      });
      await call(key, 'DELETE', '/order', { symbol: 'BTCUSDT', orderId: String(placed.body.orderId), newClientOrderId: 'uds-cancel' });
      expect((await t.api.post(`/api/v1/accounts/${id}/deposits`, { amount: '5' })).status).toBe(201);
      const events = () => c.messages.filter((m) => 'event' in m).map((m) => m.event as Record<string, any>);
      await c.until(() => events().some((e) => e.e === 'balanceUpdate'), 10_000);
      const reports = events().filter((e) => e.e === 'executionReport');
      const S = 'string';
      const N = 'number';
      const B = 'boolean';
      const fields = { e: S, E: N, s: S, c: S, S: S, o: S, f: S, q: S, p: S, P: S, F: S, g: N, C: S, x: S, X: S, r: S, i: N, l: S, z: S, L: S, n: S };
      const rest = { T: N, t: N, I: N, w: B, m: B, M: B, O: N, Z: S, Y: S, Q: S, V: S };
      const created = reports.find((e) => e.x === 'NEW')!;
      expect(Object.fromEntries(Object.entries(created).map(([k, v]) => [k, v === null ? 'null' : typeof v]))).toEqual({ ...fields, N: 'null', ...rest, W: N });
      expect(created).toMatchObject({ c: 'uds', C: '', i: placed.body.orderId, q: '0.10000000', p: '90.00000000' });
      const canceled = reports.find((e) => e.x === 'CANCELED')!;
      // Binance: c is the cancel's own client id, C the canceled order's
      expect(canceled).toMatchObject({ X: 'CANCELED', c: 'uds-cancel', C: 'uds', w: false });
      const position = events().find((e) => e.e === 'outboundAccountPosition')!;
      expect(position).toEqual({ e: 'outboundAccountPosition', E: expect.any(Number), u: expect.any(Number), B: expect.any(Array) });
      for (const b of position.B) expect(b).toEqual({ a: expect.any(String), f: expect.stringMatching(P8), l: expect.stringMatching(P8) });
      expect(events().find((e) => e.e === 'balanceUpdate')).toEqual({
        e: 'balanceUpdate',
        E: expect.any(Number),
        a: 'USDT',
        d: '5.00000000',
        T: expect.any(Number),
      });
    } finally {
      c.close();
    }
  });

  it('past the weight limit answers 429 -1003 with retryAfter in error.data; REST answers 429 -1003 with Retry-After', async () => {
    // the address's weight is shared by every test: this one runs last
    let r = await get('/depth', 'symbol=BTCUSDT&limit=5000');
    for (let i = 0; i < 40 && r.status !== 429; i++) r = await get('/depth', 'symbol=BTCUSDT&limit=5000');
    expect(r.status).toBe(429);
    expect(r.body).toEqual({
      code: -1003,
      msg: 'Too much request weight used; current limit is 6000 request weight per 1 MINUTE. Please use WebSocket Streams for live updates to avoid polling the API.',
    });
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    const c = await collect(wsUrl());
    try {
      const refused = await request(c, 'time');
      expect(refused).toMatchObject({ status: 429, error: { code: -1003, data: { serverTime: expect.any(Number), retryAfter: expect.any(Number) } } });
      expect(refused.error.data.retryAfter).toBeGreaterThan(refused.error.data.serverTime);
    } finally {
      c.close();
    }
  });
});
