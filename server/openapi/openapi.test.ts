import { pino } from 'pino';
import uws from 'uWebSockets.js';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { createMemoryEventLog } from '../../adapters/store/event-log/memory.ts';
import { checkAnswerAgainst } from '../../test/support/openapi-contract.ts';
import { createGatewayRouter, GATEWAY_ERRORS } from '../gateway/router.ts';
import { registerGatewayRoutes, type GatewayApi } from '../gateway/routes.ts';
import { createGatewayShell } from '../gateway/shell.ts';
import { defineRoute } from '../http/route-spec.ts';
import { createRouter, respond } from '../http/router.ts';

const respondWith = (status: 418) => respond(status, { error: 'teapot' });
import { json, type OpenApiDocument } from './document.ts';
import { exchangeOpenApi } from './exchange.ts';
import type { ExchangeContext } from '../../runtime/exchange/context.ts';
import { mountExchangeRoutes } from '../exchange/routes.ts';
import { mountApiKeyRoutes } from '../exchange/api-key-routes.ts';
import { mountFeeRoutes } from '../exchange/fee-routes.ts';
import { mountBinanceRoutes } from '../binance/routes.ts';
import { gatewayOpenApi } from './gateway.ts';

const silent = pino({ level: 'silent' });

/** The document the exchange's API port serves: built from the routes mounted on its router. */
async function servedExchangeDocument(): Promise<OpenApiDocument> {
  const router = mountExchangeRoutes(uws.App(), untouched<ExchangeContext>('ctx', { log: silent }));
  mountApiKeyRoutes(router, untouched('ctx'), untouched('keys'));
  mountFeeRoutes(router, untouched('ctx'));
  mountBinanceRoutes(router, untouched('binance'));
  return exchangeOpenApi(router.specs());
}

/** A dependency the routes may read but not call while they are registered (a call throws: it is no function), but for the fields in `known`. */
const untouched = <T extends object>(name: string, known: Partial<T> = {}): T =>
  new Proxy(known as T, {
    get: (target, key) => (key in target ? target[key as keyof T] : untouched(`${name}.${String(key)}`)),
  });

/** The document a gateway serves: built from the routes its shell and registerGatewayRoutes registered. */
async function servedGatewayDocument(profile: 'A' | 'B', admin: boolean): Promise<OpenApiDocument> {
  const shell = createGatewayShell({ eventLog: createMemoryEventLog(), logger: silent });
  const api: GatewayApi = {
    config: { GW_PROFILE: profile, SMART_MODE: 'test', ...(admin ? { GW_ADMIN_TOKEN: 'token' } : {}) },
    chain: untouched('chain'),
    keys: untouched('keys'),
    prices: untouched('prices'),
    bets: untouched('bets'),
    fixed: profile === 'B' ? untouched('fixed') : null,
    health: untouched('health'),
    history: untouched('history'),
    metrics: untouched('metrics'),
    log: silent,
  };
  registerGatewayRoutes(shell.router, api);
  const doc = gatewayOpenApi({ profile }, shell.router.operations());
  await shell.close(0);
  return doc;
}

const ok = (path: string, status: number, body: unknown, method = 'GET', contentType = 'application/json') => ({
  method,
  path,
  status,
  contentType,
  text: typeof body === 'string' ? body : JSON.stringify(body),
});

describe('OpenAPI documents', () => {
  it('are OpenAPI 3.1 with every gateway route of the profile, health, ready, metrics and the WebSocket events', async () => {
    const a = await servedGatewayDocument('A', true);
    expect(a.openapi).toBe('3.1.0');
    for (const p of [
      '/api/state',
      '/state',
      '/api/wallet',
      '/api/faucet/{address}',
      '/api/balance/{address}',
      '/api/bet',
      '/api/price',
      '/health',
      '/ready',
      '/metrics',
      '/api/bets/{id}',
      '/api/bets',
      '/api/leaderboard',
      '/openapi.json',
      '/api/ws',
      '/api/admin/pause',
    ]) {
      expect(a.paths[p], p).toBeDefined();
    }
    expect(Object.keys(a['x-websocket-events'] ?? a.paths['/api/ws']?.get?.['x-websocket-events'] ?? {})).toEqual([
      'price',
      'bet_open',
      'bet_closed',
      'resume',
    ]);
    const b = await servedGatewayDocument('B', false);
    expect((await servedGatewayDocument('B', true)).paths['/api/admin/pause']?.post).toBeDefined();
    expect(Object.keys(b.paths['/api/bet']?.post?.responses ?? {})).toContain('403');
    expect(Object.keys(b.components.schemas)).toContain('BetReplayEvent');
    expect(b.paths['/api/admin/pause']).toBeUndefined();
    expect(b.paths['/api/actions/bet'], 'the Solana Action is Profile A only').toBeUndefined();
    // GET routes answer under /api and without it; POST routes only under /api, their bare path 405
    expect(Object.keys(a.paths['/balance/{address}'] ?? {})).toEqual(['get']);
    expect(Object.keys(a.paths['/bet'] ?? {})).toEqual(['post']);
    expect(Object.keys(a.paths['/bet']?.post?.responses ?? {})).toEqual(['405']);
    expect(Object.keys(a.paths['/api/bet']?.post?.responses ?? {})).toEqual(expect.arrayContaining(['200', '400', '413', '503']));
    const x = await servedExchangeDocument();
    for (const p of [
      '/api/v1/prices',
      '/api/v1/prices/{symbol}',
      '/api/v1/accounts',
      '/api/v1/accounts/{id}',
      '/api/v1/accounts/{id}/orders',
      '/api/v1/accounts/{id}/equity',
      '/actuator/health',
      '/actuator/prometheus',
      '/api/v1/accounts/{id}/api-keys',
      '/api/v1/accounts/{id}/api-keys/{apiKey}',
      '/api/v3/exchangeInfo',
      '/api/v3/depth',
      '/api/v3/klines',
      '/api/v3/account',
    ]) {
      expect(x.paths[p], p).toBeDefined();
    }
  });

  it('let the contract check pass documented answers and fail undocumented routes, statuses and shapes', async () => {
    const doc = await servedGatewayDocument('A', false);
    checkAnswerAgainst(doc, ok('/api/price', 200, { symbol: 'solusdt', price: '150.00000000', ts: 1 }));
    checkAnswerAgainst(doc, ok('/price', 503, { error: 'no tick yet' }));
    checkAnswerAgainst(doc, ok('/api/close', 404, { error: 'no route' }, 'POST'));
    checkAnswerAgainst(doc, ok('/api/state', 405, { error: 'no' }, 'PUT'));
    checkAnswerAgainst(doc, ok('/metrics', 200, 'a 1\n', 'GET', 'text/plain; version=0.0.4'));
    expect(() => checkAnswerAgainst(doc, ok('/api/nothing', 200, {}))).toThrow(/not in the OpenAPI document/);
    expect(() => checkAnswerAgainst(doc, ok('/api/price', 418, { error: 'x' }))).toThrow(/not documented/);
    expect(() => checkAnswerAgainst(doc, ok('/api/price', 200, { symbol: 'solusdt', price: 150, ts: 1 }))).toThrow(/does not match/);
    expect(() => checkAnswerAgainst(doc, ok('/api/price', 200, { symbol: 'solusdt', price: '150.00000000', ts: 1, extra: 1 }))).toThrow(/does not match/);
    expect(() => checkAnswerAgainst(doc, ok('/api/price', 200, 'x', 'GET', 'text/plain'))).toThrow(/content type/);
  });

  it('list exactly the routes a router serves: a route is registered only from its spec, and a spec that declares no answer is refused', () => {
    const app = uws.App();
    const router = createGatewayRouter(app, { log: silent });
    const price = defineRoute({ method: 'get', path: '/price', summary: 'price', responses: { 200: json('price', v.object({ price: v.string() })) } });
    router.get(price, () => ({ price: '1' }));
    // the 200 body is typed by the spec: a number where its schema says string does not compile
    // @ts-expect-error: price must be a string
    router.get({ ...price, path: '/price2' }, () => ({ price: 1 }));
    // nor does a body of the wrong type sent with a declared status
    // @ts-expect-error: price must be a string, with respond as without
    router.get({ ...price, path: '/price4' }, () => respond(200, { price: 1 }));
    // a status the spec does not declare does not compile either
    // @ts-expect-error: 418 is not a declared status
    router.get({ ...price, path: '/price3' }, () => respondWith(418));
    const undocumented = defineRoute({
      method: 'get',
      path: '/nothing',
      summary: 'no answer declared',
      responses: { 404: json('not found', v.object({ error: v.string() })) },
    });
    // @ts-expect-error: a route without a response schema cannot answer a body
    expect(() => router.get(undocumented, () => ({ anything: true }))).toThrow(/declares no 2xx or 101 response/);
    const paths = router.operations().map((op) => `${op.method} ${op.path}`);
    expect(paths).toEqual([
      'get /api/price',
      'get /price',
      'get /api/price2',
      'get /price2',
      'get /api/price4',
      'get /price4',
      'get /api/price3',
      'get /price3',
    ]);
    const kit = createRouter(uws.App(), { log: silent, errors: GATEWAY_ERRORS });
    expect(() => kit.add(undocumented, () => respond(404, { error: 'none' }))).toThrow(/declares no 2xx or 101 response/);
  });
});
