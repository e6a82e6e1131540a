import { describe, expect, it } from 'vitest';
import { checkAnswerAgainst } from '../../test/support/openapi-contract.ts';
import { exchangeOpenApi } from './exchange.ts';
import { gatewayOpenApi } from './gateway.ts';

const ok = (path: string, status: number, body: unknown, method = 'GET', contentType = 'application/json') => ({
  method,
  path,
  status,
  contentType,
  text: typeof body === 'string' ? body : JSON.stringify(body),
});

describe('OpenAPI documents', () => {
  it('are OpenAPI 3.1 with every gateway route of the profile, health, ready, metrics and the WebSocket events', () => {
    const a = gatewayOpenApi({ profile: 'A', admin: true });
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
    expect(Object.keys(gatewayOpenApi({ profile: 'B', admin: false }).components.schemas)).toContain('BetReplayEvent');
    expect(gatewayOpenApi({ profile: 'B', admin: false }).paths['/api/admin/pause']).toBeUndefined();
    const x = exchangeOpenApi();
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

  it('let the contract check pass documented answers and fail undocumented routes, statuses and shapes', () => {
    const doc = gatewayOpenApi({ profile: 'A', admin: false });
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
});
