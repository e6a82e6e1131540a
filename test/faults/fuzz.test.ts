/**
 * Fuzzing every route of both services over real sockets (fast-check): methods, paths with
 * arbitrary parameters, query strings, bodies (arbitrary JSON, the right fields with wrong or
 * hostile values, lone surrogates written as `\ud800` escapes, bytes that are not UTF-8, not JSON
 * at all), content types and Idempotency-Keys. Whatever arrives, the answer is a status below
 * 500 (or a documented 503), never a dropped connection, and every error carries a JSON body
 * with an `error` string (the exchange: `{error, message}`). The web page at `/` and its assets
 * under `/ui/` answer GET/HEAD with their own content types; every other answer there is JSON too.
 */
import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type GatewayStack } from '../support/gateway-stack.ts';
import { freePort, startRedisServer, startService, type RunningServer, type ServiceProcess } from '../support/servers.ts';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One request over node:http (any method token, raw bytes); status 0 when the connection dropped. */
function send(base: string, method: string, path: string, headers: Record<string, string>, body: Buffer | null): Promise<Raw> {
  const url = new URL(base);
  return new Promise((resolve) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) },
        timeout: 15_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', () => resolve({ status: 0, headers: {}, text: '' }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, headers: {}, text: '' }));
    if (body) req.write(body);
    req.end();
  });
}

// --- generators -----------------------------------------------------------------------------

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'TRACE'] as const;
const hostileText = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.constantFrom(
    '',
    ' ',
    '0',
    '-1',
    '1e309',
    '0x10',
    'NaN',
    'null',
    '../..',
    '%',
    '%zz',
    '%00',
    '\u0000',
    'A'.repeat(5_000),
    '1'.repeat(400),
    '0.00000000001',
    '１２３',
  ),
);
/** A path segment as a client might send it (percent-encoded when needed). */
const segment = fc.oneof(
  hostileText.map((s) => encodeURIComponent(s)),
  fc.constantFrom(
    '%',
    '%zz',
    '%E0%A4%A',
    '%ED%A0%80',
    '..',
    '.',
    'GdnSyH3YtwcxFvQrVVJMm1JhTS4QVX7MFsX56uJLUfiZ',
    '11111111111111111111111111111111',
    'BTCUSDT',
  ),
);
const query = fc.oneof(
  fc.constant(''),
  fc.dictionary(fc.constantFrom('limit', 'since', 'snapshot', 'x', 'since[]'), hostileText, { maxKeys: 3 }).map((d) => `?${new URLSearchParams(d).toString()}`),
  fc.constantFrom('?%', '?limit=%zz', '?since=&since=1'),
);

/** JSON text with a lone surrogate escape somewhere inside a string. */
const withLoneSurrogate = (fields: readonly string[]) =>
  fc.tuple(fc.constantFrom(...fields), fc.constantFrom('\\ud800', '\\udfff', 'x\\ud83d', '\\ud800\\u0041')).map(([k, esc]) => `{"${k}":"${esc}x"}`);

const hostileValue = (known: readonly string[]) =>
  fc.oneof(
    fc.jsonValue(),
    hostileText,
    fc.constantFrom(
      -1,
      0,
      1e308,
      -0.5,
      Number.MAX_SAFE_INTEGER + 2,
      '100000000',
      '250000000',
      'UP',
      'down',
      '1',
      1,
      true,
      'BUY',
      'SELL',
      'SOLUSDT',
      '0.01',
      ...known,
    ),
  );

/** A body: nothing, arbitrary JSON, the route's field names with hostile (or valid) values, broken text or bytes. */
const bodyOf = (routeFields: readonly string[], known: readonly string[]) => {
  const fields = routeFields.length > 0 ? routeFields : ['x'];
  return fc.oneof(
    fc.constant(null),
    fc.jsonValue().map((j) => Buffer.from(JSON.stringify(j))),
    fc.dictionary(fc.constantFrom(...fields), hostileValue(known), { maxKeys: fields.length }).map((d) => Buffer.from(JSON.stringify(d))),
    withLoneSurrogate(fields).map((t) => Buffer.from(t)),
    fc.string().map((t) => Buffer.from(t)),
    fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
    fc.constantFrom(Buffer.from('{'), Buffer.from('{"a":1,}'), Buffer.from('[]'), Buffer.from('"x"'), Buffer.from('x'.repeat(70_000))),
  );
};
const contentType = fc.constantFrom(
  undefined,
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'APPLICATION/JSON',
  'multipart/form-data; boundary=x',
);

interface RouteShape {
  template: string;
  fields: readonly string[];
}
const requestArb = (routes: readonly RouteShape[], known: readonly string[]) =>
  fc
    .record({
      method: fc.constantFrom(...METHODS),
      route: fc.constantFrom(...routes),
      params: fc.array(fc.oneof(segment, fc.constantFrom(...known, 'x')), { minLength: 3, maxLength: 3 }),
      query,
      body: fc.constant(null),
      type: contentType,
      idempotencyKey: fc.option(
        hostileText.map((s) => s.replace(/[^\x20-\x7e]/g, '')),
        { nil: undefined },
      ),
    })
    .chain((r) => bodyOf(r.route.fields, known).map((body) => ({ ...r, body })));

const pathOf = (template: string, params: string[]) => {
  let i = 0;
  return template.replace(/:[a-z]+/g, () => params[i++] ?? 'x');
};

// --- the check --------------------------------------------------------------------------------

/** Asserts the answer to one fuzzed request; `allow503` says which 503s the route documents. */
function check(method: string, path: string, r: Raw, allow503: (path: string, body: any) => boolean, exchange: boolean): void {
  const where = `${method} ${path} -> ${r.status} ${r.text.slice(0, 200)}`;
  expect(r.status, `dropped connection: ${where}`).not.toBe(0);
  let body: any;
  const type = String(r.headers['content-type'] ?? '');
  if (r.status < 400 && /^(text\/html|text\/javascript|text\/css)/.test(type)) {
    // the web page and its assets (`/`, `/ui/...`): not JSON, but only ever answered to GET/HEAD
    expect(['GET', 'HEAD'], `page asset for ${where}`).toContain(method);
    return;
  }
  // the metrics scrape answers the Prometheus text format, not JSON
  const scrape =
    r.status === 200 && /^(\/api)?\/metrics(\?|$)|^\/actuator\/prometheus(\?|$)/.test(path) && String(r.headers['content-type'] ?? '').startsWith('text/plain');
  if (method !== 'HEAD' && r.text.length > 0 && !scrape) {
    try {
      body = JSON.parse(r.text);
    } catch {
      throw new Error(`not JSON: ${where}`);
    }
  }
  if (r.status >= 500) expect(r.status === 503 && allow503(path, body), `server error: ${where}`).toBe(true);
  if (r.status >= 400 && method !== 'HEAD') {
    expect(typeof body?.error, `error body without an error string: ${where}`).toBe('string');
    if (exchange) expect(typeof body?.message, `exchange error without a message: ${where}`).toBe('string');
  }
}

/** Sends `runs` fuzzed requests at `routes`; `known` are valid values (a funded wallet, an account id) mixed into paths and bodies. */
async function fuzz(
  base: string,
  routes: readonly RouteShape[],
  known: readonly string[],
  runs: number,
  allow503: (path: string, body: any) => boolean,
  exchange: boolean,
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(requestArb(routes, known), async (r) => {
      const path = pathOf(r.route.template, r.params) + r.query;
      const headers: Record<string, string> = {};
      if (r.type) headers['content-type'] = r.type;
      if (r.idempotencyKey !== undefined) headers['idempotency-key'] = r.idempotencyKey;
      const answer = await send(base, r.method, path, headers, r.body);
      check(r.method, path, answer, allow503, exchange);
    }),
    { numRuns: runs, endOnFailure: true },
  );
}

// --- web pages (both services) -----------------------------------------------------------------

/** The page at `/` and its assets under `/ui/` (known files, unknown ones, traversal attempts). */
const WEB_PAGE_ROUTES: readonly RouteShape[] = [
  { template: '/', fields: [] },
  { template: '/ui/:x', fields: [] },
  { template: '/ui/shared/:x', fields: [] },
  { template: '/ui/:x/:y/:z', fields: [] },
  { template: '/ui/app.js', fields: [] },
  { template: '/ui/lightweight-charts.js', fields: [] },
  { template: '/ui/config.json', fields: [] },
  { template: '/ui/../package.json', fields: [] },
];

// --- gateway ----------------------------------------------------------------------------------

const GATEWAY_ROUTES: readonly RouteShape[] = [
  ...['', '/api'].flatMap((base) => [
    { template: `${base}/state`, fields: [] },
    { template: `${base}/price`, fields: [] },
    { template: `${base}/balance/:address`, fields: [] },
    { template: `${base}/faucet/:address`, fields: [] },
    { template: `${base}/wallet`, fields: [] },
    { template: `${base}/bet`, fields: ['address', 'side', 'amountUnits', 'amount'] },
    { template: `${base}/close`, fields: ['id'] },
    { template: `${base}/health`, fields: [] },
    { template: `${base}/ready`, fields: [] },
    { template: `${base}/metrics`, fields: [] },
    { template: `${base}/events`, fields: [] },
    { template: `${base}/bets`, fields: [] },
    { template: `${base}/bets/:x`, fields: [] },
    { template: `${base}/leaderboard`, fields: [] },
    { template: `${base}/openapi.json`, fields: [] },
    { template: `${base}/admin/pause`, fields: ['paused'] },
    { template: `${base}/:x`, fields: [] },
    { template: `${base}/:x/:y/:z`, fields: [] },
  ]),
  ...WEB_PAGE_ROUTES,
];
/** 503s the gateway documents: no price yet (docs/gateway-api.md#errors), health/ready naming what is down. */
const gatewayAllows503 = (path: string) => /^(\/api)?\/(price|health|ready)(\?|$)/.test(path);

describe('fuzzing the gateway (profiles A and B)', () => {
  let stack: GatewayStack;
  let profileB = '';
  const known: string[] = [];
  beforeAll(async () => {
    stack = await startGatewayStack();
    await stack.tick('150.12345678');
    profileB = (await stack.extraGateway({ GW_PROFILE: 'B' })).base;
    await stack.tick('150.12345679');
    // a funded custodial wallet, so that fuzzed bets can also be accepted
    const wallet = await send(stack.base, 'POST', '/api/wallet', { 'content-type': 'application/json' }, Buffer.from('{}'));
    const address = JSON.parse(wallet.text).address as string;
    expect((await send(stack.base, 'GET', `/api/faucet/${address}`, {}, null)).status).toBe(200);
    known.push(address);
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('profile A: no 5xx but documented 503s, a JSON {error} on every refusal, no dropped connection', async () => {
    const ticker = setInterval(() => {
      stack.tick((150 + Math.random()).toFixed(8)).catch(() => undefined);
    }, 1_000);
    try {
      await fuzz(stack.base, GATEWAY_ROUTES, known, 6_000, gatewayAllows503, false);
    } finally {
      clearInterval(ticker);
    }
  }, 300_000);

  it('profile B: the same', async () => {
    const ticker = setInterval(() => {
      stack.tick((150 + Math.random()).toFixed(8)).catch(() => undefined);
    }, 1_000);
    try {
      await fuzz(profileB, GATEWAY_ROUTES, known, 4_000, gatewayAllows503, false);
    } finally {
      clearInterval(ticker);
    }
  }, 300_000);
});

// --- exchange ---------------------------------------------------------------------------------

const EXCHANGE_ROUTES: readonly RouteShape[] = [
  { template: '/api/v1/prices', fields: [] },
  { template: '/api/v1/prices/:symbol', fields: [] },
  { template: '/api/v1/accounts', fields: ['name', 'initialCash', 'feeRate'] },
  { template: '/api/v1/accounts/:id', fields: [] },
  { template: '/api/v1/accounts/:id/deposits', fields: ['amount', 'reason'] },
  { template: '/api/v1/accounts/:id/cash', fields: ['target', 'reason'] },
  { template: '/api/v1/accounts/:id/orders', fields: ['symbol', 'side', 'qty'] },
  { template: '/api/v1/accounts/:id/pnl', fields: [] },
  { template: '/api/v1/accounts/:id/positions', fields: [] },
  { template: '/api/v1/accounts/:id/equity', fields: [] },
  { template: '/api/v1/:x', fields: [] },
  { template: '/:x/:y/:z', fields: [] },
  ...WEB_PAGE_ROUTES,
];
/** 503s the exchange documents: a stale or missing book (docs/exchange-api.md#errors). */
const exchangeAllows503 = (_path: string, body: any) => body?.error === 'PRICE_UNAVAILABLE';

describe('fuzzing the exchange', () => {
  let redis: RunningServer;
  let exchange: ServiceProcess;
  let base = '';
  beforeAll(async () => {
    redis = await startRedisServer();
    const [port, mgmt] = [await freePort(), await freePort()];
    exchange = await startService(
      'exchange',
      { EXCHANGE_PORT: String(port), EXCHANGE_MGMT_PORT: String(mgmt), REDIS_URL: redis.url, EXCHANGE_FEED: 'synthetic', NATS_URL: '', LOG_LEVEL: 'warn' },
      mgmt,
    );
    base = `http://127.0.0.1:${port}`;
  }, 120_000);
  afterAll(async () => {
    await exchange?.stop();
    await redis?.stop();
  });

  it('no 5xx but PRICE_UNAVAILABLE, {error, message} on every refusal, no dropped connection', async () => {
    // a real account, so that fuzzed bodies also reach the ledger behind valid ids
    const created = await send(
      base,
      'POST',
      '/api/v1/accounts',
      { 'content-type': 'application/json' },
      Buffer.from(JSON.stringify({ name: 'fuzz-target', initialCash: '100000' })),
    );
    expect(created.status).toBe(201);
    const id = JSON.parse(created.text).id as string;
    const routes = EXCHANGE_ROUTES.map((r) => ({ ...r, template: r.template.replace(':id', id) }));
    await fuzz(base, [...EXCHANGE_ROUTES, ...routes], [id], 8_000, exchangeAllows503, true);
  }, 300_000);
});
