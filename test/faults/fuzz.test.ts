/**
 * Fuzzing every route of both services over real sockets (fast-check): methods, paths with
 * arbitrary parameters, query strings, bodies (arbitrary JSON, the right fields with wrong or
 * hostile values, lone surrogates written as `\ud800` escapes, bytes that are not UTF-8, not JSON
 * at all), content types and Idempotency-Keys. Whatever arrives, the answer is a status below
 * 500 (or a documented 503), never a dropped connection, and every error carries a JSON body
 * with an `error` string (the exchange: `{error, message}`). The web page at `/` and its assets
 * under `/ui/` answer GET/HEAD with their own content types; every other answer there is JSON too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type GatewayStack } from '../support/gateway-stack.ts';
import { startTestExchange, type TestExchange } from './support/exchange.ts';
import { fuzz, type RouteShape } from './support/fuzz-requests.ts';
import { send } from './support/raw-request.ts';

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
    { template: `${base}/bet`, fields: ['address', 'side', 'amountUnits', 'amount', 'intent'] },
    { template: `${base}/bet-intent/:address`, fields: [] },
    { template: `${base}/actions/bet`, fields: ['account'] },
    { template: `${base}/actions.json`, fields: [] },
    { template: `${base}/actions/icon.svg`, fields: [] },
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
  let exchange: TestExchange | undefined;
  let base = '';
  beforeAll(async () => {
    exchange = await startTestExchange();
    base = exchange.base;
  }, 120_000);
  afterAll(() => exchange?.stop());

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
