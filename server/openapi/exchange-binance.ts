/**
 * The exchange document's extensions of the spec (docs/exchange-api.md#api-keys,
 * docs/exchange-api.md#fees, docs/exchange-api.md#binance-spot-api): the native API's key and fee
 * routes, and the Binance-shaped market and account routes under /api/v3 with Binance's
 * `{code, msg}` errors and the `X-MBX-USED-WEIGHT-1M` header (the order routes:
 * `exchange-binance-orders.ts`).
 */
import * as v from 'valibot';
import { ApiKeyView, CreateApiKeyBody, CreatedApiKeyView } from '../exchange/api-key-wire.ts';
import { ErrorView } from '../exchange/wire.ts';
import { FeesView, SetFeesBody } from '../exchange/fee-wire.ts';
import { defineRoute } from '../http/route-spec.ts';
import { json, type OperationSpec, type ParameterSpec, type ResponseSpec } from './document.ts';

const Id: ParameterSpec = { name: 'id', in: 'path', description: 'account id (UUID)', schema: v.string() };
const err = (description: string) => json(description, ErrorView);
const extension = { 'x-extension': 'not part of the exchange spec: keys for the Binance-shaped surface' } as const;

const keysCommon = { 404: err('ACCOUNT_NOT_FOUND'), 500: err('internal error'), 503: json('REDIS_UNAVAILABLE', ErrorView, ['Retry-After']) };

/** POST /api/v1/accounts/{id}/api-keys */
export const createApiKeyRoute = defineRoute({
  method: 'post',
  path: '/api/v1/accounts/{id}/api-keys',
  summary: 'Create an API key (HMAC_SHA256: the secret is answered once; ED25519: register your public key)',
  tags: ['api-keys'],
  parameters: [Id],
  requestBody: { description: 'type (HMAC_SHA256 default, or ED25519 with publicKey in PEM), optional label', schema: CreateApiKeyBody, required: false },
  responses: {
    201: json('the key, with secretKey for HMAC_SHA256', CreatedApiKeyView),
    400: err('VALIDATION_ERROR'),
    413: err('PAYLOAD_TOO_LARGE'),
    ...keysCommon,
  },
  extensions: extension,
});

/** GET /api/v1/accounts/{id}/api-keys */
export const apiKeysRoute = defineRoute({
  method: 'get',
  path: '/api/v1/accounts/{id}/api-keys',
  summary: "The account's API keys, oldest first (never a secret)",
  tags: ['api-keys'],
  parameters: [Id],
  responses: { 200: json('keys', v.array(ApiKeyView)), ...keysCommon },
  extensions: extension,
});

/** DELETE /api/v1/accounts/{id}/api-keys/{apiKey} */
export const deleteApiKeyRoute = defineRoute({
  method: 'delete',
  path: '/api/v1/accounts/{id}/api-keys/{apiKey}',
  summary: 'Delete an API key: requests signed with it are refused (-2015) from now on',
  tags: ['api-keys'],
  parameters: [Id, { name: 'apiKey', in: 'path', description: 'the key', schema: v.string() }],
  responses: { 204: { description: 'deleted' }, ...keysCommon, 404: err('ACCOUNT_NOT_FOUND or API_KEY_NOT_FOUND') },
  extensions: extension,
});

const fees = { 'x-extension': 'not part of the exchange spec: maker and taker rates of the order engine' } as const;

/** GET /api/v1/accounts/{id}/fees (docs/exchange-api.md#fees). */
export const feesRoute = defineRoute({
  method: 'get',
  path: '/api/v1/accounts/{id}/fees',
  summary: "The account's taker (feeRate) and maker fee rates",
  tags: ['fees'],
  parameters: [Id],
  responses: { 200: json('the rates', FeesView), ...keysCommon },
  extensions: fees,
});

/** PUT /api/v1/accounts/{id}/fees */
export const setFeesRoute = defineRoute({
  method: 'put',
  path: '/api/v1/accounts/{id}/fees',
  summary: 'Set the taker (feeRate) and/or maker fee rate; orders placed from now on use them',
  tags: ['fees'],
  parameters: [Id],
  requestBody: { description: 'feeRate, makerFeeRate or both, each >= 0 and < 1', schema: SetFeesBody },
  responses: { 200: json('the rates', FeesView), 400: err('VALIDATION_ERROR'), 413: err('PAYLOAD_TOO_LARGE'), ...keysCommon },
  extensions: fees,
});

/** Binance's error body. */
export const BinanceErrorView = v.strictObject({ code: v.pipe(v.number(), v.integer()), msg: v.string() });
/** The header every /api/v3 answer carries. */
export const WEIGHT = 'X-MBX-USED-WEIGHT-1M';
/** A Binance error response. */
export const berr = (description: string): ResponseSpec => json(description, BinanceErrorView, [WEIGHT]);
/** A 200 of /api/v3. */
export const ok = (description: string, schema: v.GenericSchema): ResponseSpec => json(description, schema, [WEIGHT]);
/** A query parameter. */
export const q = (name: string, description: string): ParameterSpec => ({ name, in: 'query', description, schema: v.string() });
/** The errors every /api/v3 route may answer. */
export const binanceErrors = (): Record<number, ResponseSpec> => ({
  400: berr('a request error (-11xx, -1021, -1022)'),
  429: json('-1003: request weight past the limit', BinanceErrorView, [WEIGHT, 'Retry-After']),
  500: berr('-1000'),
  503: berr('-1001: the book is stale or a store is unavailable'),
});
const Level = v.tuple([v.string(), v.string()]);

/** The /api/v3 routes (Binance's own reference describes each; docs/exchange-api.md#binance-spot-api says what differs). */
export function binanceOperations(): OperationSpec[] {
  const errors = binanceErrors();
  const op = (path: string, summary: string, parameters: ParameterSpec[], body: ResponseSpec, extra: Record<number, ResponseSpec> = {}): OperationSpec => ({
    method: 'get',
    path: `/api/v3${path}`,
    summary,
    tags: ['binance'],
    parameters,
    responses: { 200: body, ...errors, ...extra },
    extensions: { 'x-binance': true },
  });
  const symbols = [q('symbol', 'e.g. BTCUSDT'), q('symbols', 'JSON array, e.g. ["BTCUSDT","ETHUSDT"]')];
  const tickerOf = (item: v.GenericSchema) => v.union([item, v.array(item)]);
  return [
    op('/ping', 'Test connectivity (weight 1)', [], ok('{}', v.object({}))),
    op('/time', 'Server time (weight 1)', [], ok('serverTime', v.object({ serverTime: v.number() }))),
    op(
      '/exchangeInfo',
      'Symbols, filters and the weight limit (weight 20)',
      [...symbols],
      ok('exchange information', v.looseObject({ symbols: v.array(v.looseObject({})) })),
    ),
    op(
      '/depth',
      'Order book with lastUpdateId (weight 5/25/50/250 by limit)',
      [q('symbol', 'required'), q('limit', 'default 100, max 5000')],
      ok('book', v.object({ lastUpdateId: v.number(), bids: v.array(Level), asks: v.array(Level) })),
    ),
    op('/ticker/price', 'Mid price (weight 2 for one symbol, else 4)', symbols, ok('price(s)', tickerOf(v.object({ symbol: v.string(), price: v.string() })))),
    op(
      '/ticker/bookTicker',
      'Best bid and ask (weight 2 for one symbol, else 4)',
      symbols,
      ok('book ticker(s)', tickerOf(v.looseObject({ symbol: v.string() }))),
    ),
    op(
      '/ticker/24hr',
      '24-hour statistics of the mid price (weight 2/40/80)',
      [...symbols, q('type', 'FULL or MINI')],
      ok('ticker(s)', tickerOf(v.looseObject({ symbol: v.string() }))),
    ),
    op(
      '/klines',
      'Candles of the mid price (weight 2)',
      [
        q('symbol', 'required'),
        q('interval', '1m 3m 5m 15m 30m 1h 2h 4h 6h 8h 12h 1d'),
        q('startTime', 'ms'),
        q('endTime', 'ms'),
        q('limit', 'default 500, max 1000'),
      ],
      ok('klines', v.array(v.array(v.union([v.string(), v.number()])))),
    ),
    op(
      '/account',
      "SIGNED: balances {asset, free, locked} of the key's account (weight 20)",
      [
        q('timestamp', 'ms or µs'),
        q('recvWindow', 'default 5000, max 60000'),
        q('signature', 'HMAC-SHA256 hex or Ed25519 base64'),
        q('omitZeroBalances', 'true/false'),
      ],
      ok('account', v.looseObject({ balances: v.array(v.object({ asset: v.string(), free: v.string(), locked: v.string() })) })),
      { 401: berr('-2014 (no or malformed key), -2015 (unknown key)') },
    ),
  ];
}
