/**
 * The Binance-shaped surface, black-box (docs/exchange-api.md#binance-spot-api): API keys through
 * the native API, signing with HMAC-SHA256 and Ed25519 keys, Binance's errors and codes, request
 * weights, the public market data and the signed account. Run by `binance-api.test.ts` (the
 * ledger on one Redis server) and `binance-api-cluster.test.ts` (on a Redis Cluster).
 *
 * @example
 *   describeBinanceApi({ redis: 'cluster' });
 */
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exchangeForSuite, type ExchangeUnderTest, type LedgerOptions } from './harness.ts';
import { binanceCall, ed25519KeyFor, hmacKeyFor, signedCall } from './binance-support.ts';
import { expectError } from './harness.ts';

/** Registers the suite on its exchanges (each started for its describe, on `ledger`); answers the main one's handle. */
export function describeBinanceApi(ledger: LedgerOptions = {}): ExchangeUnderTest {
  const t = exchangeForSuite({}, ledger);
  const get = (path: string, query = '') => binanceCall(t.baseUrl, 'GET', path, query);
  const expectCode = (r: { status: number; body: any }, status: number, code: number) => {
    expect({ status: r.status, code: r.body?.code }).toEqual({ status, code });
    expect(Object.keys(r.body).sort()).toEqual(['code', 'msg']);
    expect(typeof r.body.msg).toBe('string');
  };

  describe('API keys through the native API', () => {
    it('creates an HMAC key whose secret is answered once, lists keys without secrets, deletes them', async () => {
      const id = await t.openAccount('keys-owner');
      const made = await t.api.post(`/api/v1/accounts/${id}/api-keys`, { label: 'my bot' });
      expect(made.status).toBe(201);
      expect(made.body).toMatchObject({
        type: 'HMAC_SHA256',
        label: 'my bot',
        apiKey: expect.stringMatching(/^[A-Za-z0-9]{64}$/),
        secretKey: expect.stringMatching(/^[A-Za-z0-9]{64}$/),
      });
      const ed = await ed25519KeyFor(t.api, id);
      const list = await t.api.get(`/api/v1/accounts/${id}/api-keys`);
      expect(list.body.map((k: any) => k.apiKey)).toEqual([made.body.apiKey, ed.apiKey]);
      expect(list.text).not.toContain(made.body.secretKey);
      expect(list.body[1].publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----/);
      expect((await t.api.del(`/api/v1/accounts/${id}/api-keys/${made.body.apiKey}`)).status).toBe(204);
      expectError(await t.api.del(`/api/v1/accounts/${id}/api-keys/${made.body.apiKey}`), 404, 'API_KEY_NOT_FOUND');
      expect((await t.api.get(`/api/v1/accounts/${id}/api-keys`)).body.map((k: any) => k.apiKey)).toEqual([ed.apiKey]);
    });

    it('refuses bad requests and unknown accounts', async () => {
      const id = await t.openAccount('keys-bad');
      expectError(await t.api.post(`/api/v1/accounts/${id}/api-keys`, { type: 'RSA' }), 400, 'VALIDATION_ERROR');
      expectError(await t.api.post(`/api/v1/accounts/${id}/api-keys`, { type: 'ED25519' }), 400, 'VALIDATION_ERROR');
      expectError(await t.api.post(`/api/v1/accounts/${id}/api-keys`, { type: 'ED25519', publicKey: 'not a key' }), 400, 'VALIDATION_ERROR');
      expectError(await t.api.post(`/api/v1/accounts/${id}/api-keys`, { type: 'HMAC_SHA256', publicKey: 'x' }), 400, 'VALIDATION_ERROR');
      expectError(await t.api.post(`/api/v1/accounts/${id}/api-keys`, { extra: 1 }), 400, 'VALIDATION_ERROR');
      const nobody = '00000000-0000-4000-8000-000000000000';
      expectError(await t.api.post(`/api/v1/accounts/${nobody}/api-keys`, {}), 404, 'ACCOUNT_NOT_FOUND');
      expectError(await t.api.get(`/api/v1/accounts/${nobody}/api-keys`), 404, 'ACCOUNT_NOT_FOUND');
    });
  });

  describe('signed requests', () => {
    it('reads the account of the key that signed, with HMAC-SHA256 and with Ed25519, in the query or the body', async () => {
      const id = await t.openAccount('signer', '1234.5');
      expect((await t.order(id, 'BTCUSDT', 'BUY', '0.5')).status).toBe(201);
      const hmac = await hmacKeyFor(t.api, id);
      const ed = await ed25519KeyFor(t.api, id);
      for (const signing of [hmac, ed]) {
        const r = await signedCall(t.baseUrl, 'GET', '/api/v3/account', signing);
        expect(r.status).toBe(200);
        expect(r.body.balances).toEqual([
          { asset: 'USDT', free: '1184.45000000', locked: '0.00000000' },
          { asset: 'BTC', free: '0.50000000', locked: '0.00000000' },
          { asset: 'ETH', free: '0.00000000', locked: '0.00000000' },
          { asset: 'SOL', free: '0.00000000', locked: '0.00000000' },
        ]);
        expect(r.body).toMatchObject({
          makerCommission: 10,
          takerCommission: 10,
          commissionRates: { maker: '0.00100000', taker: '0.00100000' },
          accountType: 'SPOT',
          canTrade: true,
        });
        expect(r.weight).toBeGreaterThanOrEqual(20);
      }
      const omit = await signedCall(t.baseUrl, 'GET', '/api/v3/account', hmac, { omitZeroBalances: 'true', recvWindow: '10000' });
      expect(omit.body.balances.map((b: any) => b.asset)).toEqual(['USDT', 'BTC']);
      // microseconds are taken too
      const micro = await signedCall(t.baseUrl, 'GET', '/api/v3/account', hmac, { timestamp: `${Date.now()}000` });
      expect(micro.status).toBe(200);
    });

    it('verifies the signature over the parameters exactly as sent, in hex of either case', async () => {
      const id = await t.openAccount('mixed-signer');
      const key = await hmacKeyFor(t.api, id);
      const query = `timestamp=${Date.now()}`;
      const body = 'recvWindow=5000';
      const signature = createHmac('sha256', key.secretKey)
        .update(query + body)
        .digest('hex');
      // signed over the two parts joined without '&' but sent as one query: not what was sent
      const r = await binanceCall(t.baseUrl, 'GET', '/api/v3/account', `${query}&${body}&signature=${signature.toUpperCase()}`, '', {
        'X-MBX-APIKEY': key.apiKey,
      });
      expectCode(r, 400, -1022);
      const joined = createHmac('sha256', key.secretKey).update(`${query}&${body}`).digest('hex').toUpperCase();
      const ok = await binanceCall(t.baseUrl, 'GET', '/api/v3/account', `${query}&${body}&signature=${joined}`, '', { 'X-MBX-APIKEY': key.apiKey });
      expect(ok.status).toBe(200);
    });

    it("reaches only its own account: two accounts' keys each read their own balances", async () => {
      const rich = await t.openAccount('rich', '50000');
      const poor = await t.openAccount('poor', '10');
      const [richKey, poorKey] = [await hmacKeyFor(t.api, rich), await hmacKeyFor(t.api, poor)];
      const usdt = async (k: { apiKey: string; secretKey: string }) => (await signedCall(t.baseUrl, 'GET', '/api/v3/account', k)).body.balances[0].free;
      expect(await usdt(richKey)).toBe('50000.00000000');
      expect(await usdt(poorKey)).toBe('10.00000000');
      // one account's key with the other's secret signs nothing
      expectCode(await signedCall(t.baseUrl, 'GET', '/api/v3/account', { apiKey: poorKey.apiKey, secretKey: richKey.secretKey }), 400, -1022);
    });

    it('refuses a missing, malformed, unknown or deleted key, and a key of a deleted account', async () => {
      const id = await t.openAccount('refused');
      const key = await hmacKeyFor(t.api, id);
      expectCode(await binanceCall(t.baseUrl, 'GET', '/api/v3/account', `timestamp=${Date.now()}&signature=00`), 401, -2014);
      expectCode(await signedCall(t.baseUrl, 'GET', '/api/v3/account', { ...key, apiKey: 'bad key!' }), 401, -2014);
      expectCode(await signedCall(t.baseUrl, 'GET', '/api/v3/account', { ...key, apiKey: 'A'.repeat(64) }), 401, -2015);
      expect((await t.api.del(`/api/v1/accounts/${id}/api-keys/${key.apiKey}`)).status).toBe(204);
      expectCode(await signedCall(t.baseUrl, 'GET', '/api/v3/account', key), 401, -2015);
      const id2 = await t.openAccount('refused-2');
      const key2 = await hmacKeyFor(t.api, id2);
      expect((await signedCall(t.baseUrl, 'GET', '/api/v3/account', key2)).status).toBe(200);
      expect((await t.api.del(`/api/v1/accounts/${id2}`)).status).toBe(204);
      expectCode(await signedCall(t.baseUrl, 'GET', '/api/v3/account', key2), 401, -2015);
    });

    it('refuses a bad signature, a stale or early timestamp, and a bad recvWindow with their codes', async () => {
      const id = await t.openAccount('timing');
      const key = await hmacKeyFor(t.api, id);
      const ed = await ed25519KeyFor(t.api, id);
      expectCode(await signedCall(t.baseUrl, 'GET', '/api/v3/account', { ...key, secretKey: 'wrong' }), 400, -1022);
      const otherEd = await ed25519KeyFor(t.api, id);
      expectCode(await signedCall(t.baseUrl, 'GET', '/api/v3/account', { apiKey: ed.apiKey, privateKey: otherEd.privateKey }), 400, -1022);
      expectCode(await signedCall(t.baseUrl, 'GET', '/api/v3/account', key, { timestamp: String(Date.now() - 6_000) }), 400, -1021);
      expect((await signedCall(t.baseUrl, 'GET', '/api/v3/account', key, { timestamp: String(Date.now() - 6_000), recvWindow: '60000' })).status).toBe(200);
      expectCode(await signedCall(t.baseUrl, 'GET', '/api/v3/account', key, { timestamp: String(Date.now() + 5_000) }), 400, -1021);
      expectCode(await signedCall(t.baseUrl, 'GET', '/api/v3/account', key, { recvWindow: '60001' }), 400, -1131);
      expectCode(await signedCall(t.baseUrl, 'GET', '/api/v3/account', key, { timestamp: 'soon' }), 400, -1100);
      expectCode(await binanceCall(t.baseUrl, 'GET', '/api/v3/account', `timestamp=${Date.now()}`, '', { 'X-MBX-APIKEY': key.apiKey }), 400, -1102);
      expectCode(await signedCall(t.baseUrl, 'GET', '/api/v3/account', key, { omitZeroBalances: 'maybe' }), 400, -1130);
      expectCode(await signedCall(t.baseUrl, 'GET', '/api/v3/account', key, { extra: '1' }), 400, -1104);
    });
  });

  describe('public market data', () => {
    it('answers ping, time and exchangeInfo with the three symbols and their filters', async () => {
      expect((await get('/api/v3/ping')).body).toEqual({});
      const time = await get('/api/v3/time');
      expect(Math.abs(time.body.serverTime - Date.now())).toBeLessThan(5_000);
      expect(time.weight).toBeGreaterThanOrEqual(1);
      const info = await get('/api/v3/exchangeInfo');
      expect(info.body.symbols.map((s: any) => [s.symbol, s.status, s.baseAsset, s.quoteAsset])).toEqual([
        ['BTCUSDT', 'TRADING', 'BTC', 'USDT'],
        ['ETHUSDT', 'TRADING', 'ETH', 'USDT'],
        ['SOLUSDT', 'TRADING', 'SOL', 'USDT'],
      ]);
      expect(info.body.symbols[0].filters.map((f: any) => f.filterType)).toEqual(['PRICE_FILTER', 'LOT_SIZE', 'MARKET_LOT_SIZE', 'NOTIONAL']);
      expect(info.body.rateLimits).toEqual([
        { rateLimitType: 'REQUEST_WEIGHT', interval: 'MINUTE', intervalNum: 1, limit: 6000 },
        { rateLimitType: 'ORDERS', interval: 'SECOND', intervalNum: 10, limit: 100 },
        { rateLimitType: 'ORDERS', interval: 'DAY', intervalNum: 1, limit: 200000 },
      ]);
      expect((await get('/api/v3/exchangeInfo', 'symbol=SOLUSDT')).body.symbols.map((s: any) => s.symbol)).toEqual(['SOLUSDT']);
      expect((await get('/api/v3/exchangeInfo', `symbols=${encodeURIComponent('["ETHUSDT","BTCUSDT"]')}`)).body.symbols.map((s: any) => s.symbol)).toEqual([
        'ETHUSDT',
        'BTCUSDT',
      ]);
    });

    it('answers depth of the latest book with a lastUpdateId and Binance weights by limit', async () => {
      const r = await get('/api/v3/depth', 'symbol=BTCUSDT&limit=2');
      expect(r.body).toEqual({
        lastUpdateId: expect.any(Number),
        bids: [
          ['99.00000000', '1.00000000'],
          ['98.00000000', '2.00000000'],
        ],
        asks: [
          ['100.00000000', '1.00000000'],
          ['101.00000000', '2.00000000'],
        ],
      });
      const before = (await get('/api/v3/ping')).weight;
      expect((await get('/api/v3/depth', 'symbol=BTCUSDT&limit=500')).weight - before).toBe(25);
      const mid = (await get('/api/v3/ping')).weight;
      expect((await get('/api/v3/depth', 'symbol=BTCUSDT&limit=1000')).weight - mid).toBe(50);
    });

    it('answers tickers for one symbol (an object) or several (an array), leaving out symbols without a fresh book', async () => {
      expect((await get('/api/v3/ticker/price', 'symbol=BTCUSDT')).body).toEqual({ symbol: 'BTCUSDT', price: '99.50000000' });
      expect((await get('/api/v3/ticker/price')).body.map((p: any) => p.symbol)).toEqual(['BTCUSDT', 'SOLUSDT']);
      expect((await get('/api/v3/ticker/bookTicker', 'symbol=SOLUSDT')).body).toEqual({
        symbol: 'SOLUSDT',
        bidPrice: '149.50000000',
        bidQty: '100.00000000',
        askPrice: '150.00000000',
        askQty: '100.00000000',
      });
      const day = await get('/api/v3/ticker/24hr', 'symbol=SOLUSDT');
      expect(day.body).toMatchObject({ symbol: 'SOLUSDT', lastPrice: '149.75000000', bidPrice: '149.50000000', askPrice: '150.00000000', count: 0 });
      expect(Object.keys((await get('/api/v3/ticker/24hr', 'symbol=SOLUSDT&type=MINI')).body)).not.toContain('bidPrice');
      const all = await get('/api/v3/ticker/24hr');
      expect(all.body.map((x: any) => x.symbol)).toEqual(['BTCUSDT', 'SOLUSDT']);
      expectCode(await get('/api/v3/ticker/price', 'symbol=ETHUSDT'), 503, -1001);
    });

    it('answers klines of the mid price from the books taken', async () => {
      const r = await get('/api/v3/klines', 'symbol=BTCUSDT&interval=1m&limit=5');
      expect(r.body.length).toBeGreaterThanOrEqual(1);
      const last = r.body[r.body.length - 1];
      expect(last).toHaveLength(12);
      expect(last[4]).toBe('99.50000000');
      expect(last[6] - last[0]).toBe(59_999);
      const hour = await get('/api/v3/klines', 'symbol=BTCUSDT&interval=1h');
      expect(hour.body[hour.body.length - 1][0] % 3_600_000).toBe(0);
      expect((await get('/api/v3/klines', `symbol=BTCUSDT&interval=1m&startTime=${Date.now() + 3_600_000}`)).body).toEqual([]);
    });

    it('refuses bad parameters with Binance codes and HTTP 400, never a 500', async () => {
      expectCode(await get('/api/v3/depth'), 400, -1102);
      expectCode(await get('/api/v3/depth', 'symbol=btcusdt'), 400, -1100);
      expectCode(await get('/api/v3/depth', 'symbol=DOGEUSDT'), 400, -1121);
      expectCode(await get('/api/v3/depth', 'symbol=BTCUSDT&limit=abc'), 400, -1100);
      expectCode(await get('/api/v3/depth', 'symbol=BTCUSDT&limit=0'), 400, -1130);
      expectCode(await get('/api/v3/depth', 'symbol=BTCUSDT&symbol=ETHUSDT'), 400, -1101);
      expectCode(await get('/api/v3/depth', 'symbol=BTCUSDT&nonsense=1'), 400, -1104);
      expectCode(await get('/api/v3/klines', 'symbol=BTCUSDT&interval=7m'), 400, -1120);
      expectCode(await get('/api/v3/klines', 'symbol=BTCUSDT'), 400, -1102);
      expectCode(await get('/api/v3/klines', 'symbol=BTCUSDT&interval=1m&limit=1001'), 400, -1130);
      expectCode(await get('/api/v3/ticker/price', 'symbol=BTCUSDT&symbols=%5B%22BTCUSDT%22%5D'), 400, -1128);
      expectCode(await get('/api/v3/ticker/price', 'symbols=%5B%22BTCUSDT%22,%22BTCUSDT%22%5D'), 400, -1151);
      expectCode(await get('/api/v3/ticker/price', 'symbols=BTCUSDT'), 400, -1100);
      expectCode(await get('/api/v3/ticker/24hr', 'symbol=BTCUSDT&type=HUGE'), 400, -1139);
      expectCode(await get('/api/v3/ticker/bookTicker', 'symbol=%FF'), 400, -1100);
    });
  });

  describe('request weight', () => {
    const small = exchangeForSuite({ BINANCE_WEIGHT_LIMIT: '30' }, ledger);

    it('counts weight per minute on every answer and refuses past the limit with 429, -1003 and Retry-After', async () => {
      const first = await binanceCall(small.baseUrl, 'GET', '/api/v3/exchangeInfo');
      expect(first.status).toBe(200);
      expect(first.weight).toBe(20);
      expect(first.body.rateLimits[0].limit).toBe(30);
      const second = await binanceCall(small.baseUrl, 'GET', '/api/v3/depth', 'symbol=BTCUSDT');
      const refused = await binanceCall(small.baseUrl, 'GET', '/api/v3/depth', 'symbol=BTCUSDT&limit=500');
      // the minute may have turned between the calls: then the count started again
      if (second.weight === 25 && refused.weight === 50) {
        expectCode(refused, 429, -1003);
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
        expectCode(await binanceCall(small.baseUrl, 'GET', '/api/v3/ping'), 429, -1003);
      } else expect(refused.status).toBe(200);
    });
  });

  describe('any request', () => {
    const roomy = exchangeForSuite({ BINANCE_WEIGHT_LIMIT: '100000000' }, ledger);
    const names = ['symbol', 'symbols', 'limit', 'interval', 'startTime', 'endTime', 'type', 'timestamp', 'recvWindow', 'signature', 'omitZeroBalances', 'x'];
    const paths = ['/ping', '/time', '/exchangeInfo', '/depth', '/ticker/price', '/ticker/bookTicker', '/ticker/24hr', '/klines', '/account'];
    const value = fc.oneof(
      fc.constantFrom('BTCUSDT', 'btcusdt', '["BTCUSDT"]', '1m', '0', '5000', '-1', '1e3', '', '99999999999999999999999'),
      fc.string(),
      fc.integer().map(String),
    );

    it('is answered 200 or a Binance error with its code, never a 500', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...paths),
          fc.array(fc.tuple(fc.constantFrom(...names), value), { maxLength: 5 }),
          fc.boolean(),
          async (path, pairs, withKey) => {
            const query = new URLSearchParams(pairs).toString();
            const r = await binanceCall(roomy.baseUrl, 'GET', `/api/v3${path}`, query, '', withKey ? { 'X-MBX-APIKEY': 'A'.repeat(64) } : {});
            expect([200, 400, 401, 503]).toContain(r.status);
            if (r.status !== 200) expect(Object.keys(r.body).sort()).toEqual(['code', 'msg']);
            expect(r.weight).toBeGreaterThan(0);
          },
        ),
        { numRuns: 150 },
      );
    });
  });
  return t;
}
