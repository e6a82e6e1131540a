/**
 * The exchange document's extensions of the spec (docs/exchange-api.md#api-keys,
 * docs/exchange-api.md#binance-spot-api): the native API's key routes, and the Binance-shaped
 * routes under /api/v3 with Binance's `{code, msg}` errors and the `X-MBX-USED-WEIGHT-1M` header.
 */
import * as v from 'valibot';
import { ApiKeyView, CreateApiKeyBody, CreatedApiKeyView } from '../exchange/api-key-wire.ts';
import { ErrorView } from '../exchange/wire.ts';
import { FeesView, SetFeesBody } from '../exchange/fee-wire.ts';
import { json, type OperationSpec, type ParameterSpec, type ResponseSpec } from './document.ts';

const Id: ParameterSpec = { name: 'id', in: 'path', description: 'account id (UUID)', schema: v.string() };
const err = (description: string): ResponseSpec => json(description, ErrorView);
const extension = { 'x-extension': 'not part of the exchange spec: keys for the Binance-shaped surface' } as const;

/** POST/GET /api/v1/accounts/{id}/api-keys and DELETE /api/v1/accounts/{id}/api-keys/{apiKey}. */
export function apiKeyOperations(): OperationSpec[] {
  const common = { 404: err('ACCOUNT_NOT_FOUND'), 500: err('internal error'), 503: json('REDIS_UNAVAILABLE', ErrorView, ['Retry-After']) };
  return [
    {
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
        ...common,
      },
      extensions: extension,
    },
    {
      method: 'get',
      path: '/api/v1/accounts/{id}/api-keys',
      summary: "The account's API keys, oldest first (never a secret)",
      tags: ['api-keys'],
      parameters: [Id],
      responses: { 200: json('keys', v.array(ApiKeyView)), ...common },
      extensions: extension,
    },
    {
      method: 'delete',
      path: '/api/v1/accounts/{id}/api-keys/{apiKey}',
      summary: 'Delete an API key: requests signed with it are refused (-2015) from now on',
      tags: ['api-keys'],
      parameters: [Id, { name: 'apiKey', in: 'path', description: 'the key', schema: v.string() }],
      responses: { 204: { description: 'deleted' }, ...common, 404: err('ACCOUNT_NOT_FOUND or API_KEY_NOT_FOUND') },
      extensions: extension,
    },
  ];
}

/** GET/PUT /api/v1/accounts/{id}/fees (docs/exchange-api.md#fees). */
export function feeOperations(): OperationSpec[] {
  const common = { 404: err('ACCOUNT_NOT_FOUND'), 500: err('internal error'), 503: json('REDIS_UNAVAILABLE', ErrorView, ['Retry-After']) };
  const fees = { 'x-extension': 'not part of the exchange spec: maker and taker rates of the order engine' } as const;
  return [
    {
      method: 'get',
      path: '/api/v1/accounts/{id}/fees',
      summary: "The account's taker (feeRate) and maker fee rates",
      tags: ['fees'],
      parameters: [Id],
      responses: { 200: json('the rates', FeesView), ...common },
      extensions: fees,
    },
    {
      method: 'put',
      path: '/api/v1/accounts/{id}/fees',
      summary: 'Set the taker (feeRate) and/or maker fee rate; orders placed from now on use them',
      tags: ['fees'],
      parameters: [Id],
      requestBody: { description: 'feeRate, makerFeeRate or both, each >= 0 and < 1', schema: SetFeesBody },
      responses: { 200: json('the rates', FeesView), 400: err('VALIDATION_ERROR'), 413: err('PAYLOAD_TOO_LARGE'), ...common },
      extensions: fees,
    },
  ];
}

/** Binance's error body. */
export const BinanceErrorView = v.strictObject({ code: v.pipe(v.number(), v.integer()), msg: v.string() });
const WEIGHT = 'X-MBX-USED-WEIGHT-1M';
const berr = (description: string): ResponseSpec => json(description, BinanceErrorView, [WEIGHT]);
const ok = (description: string, schema: v.GenericSchema): ResponseSpec => json(description, schema, [WEIGHT]);
const q = (name: string, description: string): ParameterSpec => ({ name, in: 'query', description, schema: v.string() });
const Level = v.tuple([v.string(), v.string()]);

/** The /api/v3 routes (Binance's own reference describes each; docs/exchange-api.md#binance-spot-api says what differs). */
export function binanceOperations(): OperationSpec[] {
  const errors = {
    400: berr('a request error (-11xx, -1021, -1022)'),
    429: json('-1003: request weight past the limit', BinanceErrorView, [WEIGHT, 'Retry-After']),
    500: berr('-1000'),
    503: berr('-1001: the book is stale or a store is unavailable'),
  };
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
    ...binanceOrderOperations(errors),
  ];
}

const d8 = v.string();
const OrderCore = {
  price: d8,
  origQty: d8,
  executedQty: d8,
  origQuoteOrderQty: d8,
  cummulativeQuoteQty: d8,
  status: v.picklist(['NEW', 'PARTIALLY_FILLED', 'FILLED', 'CANCELED', 'EXPIRED']),
  timeInForce: v.picklist(['GTC', 'IOC', 'FOK']),
  type: v.picklist(['LIMIT', 'LIMIT_MAKER', 'MARKET']),
  side: v.picklist(['BUY', 'SELL']),
  selfTradePreventionMode: v.string(),
};
const Ack = { symbol: v.string(), orderId: v.string(), orderListId: v.literal(-1), clientOrderId: v.string(), transactTime: v.number() };
const Fill = v.strictObject({ price: d8, qty: d8, commission: d8, commissionAsset: v.string(), tradeId: v.string() });
/** `POST /api/v3/order`: ACK, RESULT or FULL. */
const NewOrderView = v.union([
  v.strictObject({ ...Ack, ...OrderCore, workingTime: v.number(), fills: v.array(Fill) }),
  v.strictObject({ ...Ack, ...OrderCore, workingTime: v.number() }),
  v.strictObject(Ack),
]);
const OrderView = v.strictObject({
  symbol: v.string(),
  orderId: v.string(),
  orderListId: v.literal(-1),
  clientOrderId: v.string(),
  ...OrderCore,
  stopPrice: d8,
  icebergQty: d8,
  time: v.number(),
  updateTime: v.number(),
  isWorking: v.boolean(),
  workingTime: v.number(),
});
const CanceledView = v.strictObject({ ...Ack, origClientOrderId: v.string(), ...OrderCore });
const TradeView = v.strictObject({
  symbol: v.string(),
  id: v.string(),
  orderId: v.string(),
  orderListId: v.literal(-1),
  price: d8,
  qty: d8,
  quoteQty: d8,
  commission: d8,
  commissionAsset: v.string(),
  time: v.number(),
  isBuyer: v.boolean(),
  isMaker: v.boolean(),
  isBestMatch: v.boolean(),
});
const ORDER_COUNTS = ['X-MBX-ORDER-COUNT-10S', 'X-MBX-ORDER-COUNT-1D'];
const NewOrderForm = v.object({
  symbol: v.string(),
  side: v.string(),
  type: v.string(),
  timeInForce: v.optional(v.string()),
  quantity: v.optional(v.string()),
  quoteOrderQty: v.optional(v.string()),
  price: v.optional(v.string()),
  newClientOrderId: v.optional(v.string()),
  newOrderRespType: v.optional(v.string()),
  selfTradePreventionMode: v.optional(v.string()),
  timestamp: v.string(),
  recvWindow: v.optional(v.string()),
  signature: v.string(),
});

/** The SIGNED order routes (docs/exchange-api.md#binance-orders). */
function binanceOrderOperations(errors: Record<number, ResponseSpec>): OperationSpec[] {
  const signing = [q('timestamp', 'ms or µs'), q('recvWindow', 'default 5000, max 60000'), q('signature', 'HMAC-SHA256 hex or Ed25519 base64')];
  const signedErrors = { ...errors, 401: berr('-2014 (no or malformed key), -2015 (unknown key)') };
  const op = (
    method: 'get' | 'post' | 'delete',
    path: string,
    summary: string,
    parameters: ParameterSpec[],
    body: ResponseSpec,
    form = false,
  ): OperationSpec => ({
    method,
    path: `/api/v3${path}`,
    summary,
    tags: ['binance'],
    parameters: [...parameters, ...signing],
    ...(form
      ? {
          requestBody: {
            description: 'the same parameters as a form (application/x-www-form-urlencoded), instead of or besides the query',
            schema: NewOrderForm,
            required: false,
            contentType: 'application/x-www-form-urlencoded' as const,
          },
        }
      : {}),
    responses: { 200: body, ...signedErrors },
    extensions: { 'x-binance': true },
  });
  const newOrder = [
    q('symbol', 'required'),
    q('side', 'BUY or SELL'),
    q('type', 'LIMIT, LIMIT_MAKER or MARKET'),
    q('timeInForce', 'LIMIT: GTC, IOC or FOK'),
    q('quantity', 'base quantity'),
    q('quoteOrderQty', 'MARKET: USDT to spend or receive'),
    q('price', 'LIMIT, LIMIT_MAKER'),
    q('newClientOrderId', 'unique per account'),
    q('newOrderRespType', 'ACK, RESULT or FULL'),
    q('selfTradePreventionMode', 'accepted, nothing to prevent'),
  ];
  const ref = [q('symbol', 'required'), q('orderId', "the exchange's id"), q('origClientOrderId', "the client's id")];
  const page = [q('startTime', 'ms'), q('endTime', 'ms, at most 24 h after startTime'), q('limit', 'default 500, max 1000')];
  return [
    {
      ...op(
        'post',
        '/order',
        'SIGNED: place an order on the order engine (weight 1)',
        newOrder,
        json('the order (ACK, RESULT or FULL)', NewOrderView, [WEIGHT, ...ORDER_COUNTS]),
        true,
      ),
      responses: {
        200: json('the order (ACK, RESULT or FULL)', NewOrderView, [WEIGHT, ...ORDER_COUNTS]),
        ...signedErrors,
        400: json('a request error, -1013 filter failure, -2010 order rejected', BinanceErrorView, [WEIGHT, ...ORDER_COUNTS]),
        429: json('-1003 request weight or -1015 orders past the limit', BinanceErrorView, [WEIGHT, ...ORDER_COUNTS, 'Retry-After']),
      },
    },
    op(
      'post',
      '/order/test',
      'SIGNED: check an order as POST order does, place nothing (weight 1, 20 with computeCommissionRates)',
      [...newOrder, q('computeCommissionRates', 'true/false')],
      ok('{} or the commission rates', v.union([v.strictObject({}), v.looseObject({ standardCommissionForOrder: v.object({ maker: d8, taker: d8 }) })])),
      true,
    ),
    op('get', '/order', "SIGNED: one order of the key's account (weight 4)", ref, ok('the order', OrderView)),
    op(
      'delete',
      '/order',
      'SIGNED: cancel an open order (weight 1)',
      [...ref, q('newClientOrderId', "the cancel's own id")],
      ok('the canceled order', CanceledView),
      true,
    ),
    op('get', '/openOrders', 'SIGNED: open orders (weight 6 for one symbol, 80 for all)', [q('symbol', 'optional')], ok('open orders', v.array(OrderView))),
    op(
      'delete',
      '/openOrders',
      'SIGNED: cancel every open order of a symbol (weight 1)',
      [q('symbol', 'required')],
      ok('the canceled orders', v.array(CanceledView)),
      true,
    ),
    op(
      'get',
      '/allOrders',
      'SIGNED: orders of a symbol (weight 20)',
      [q('symbol', 'required'), q('orderId', 'from this order on'), ...page],
      ok('orders', v.array(OrderView)),
    ),
    op(
      'get',
      '/myTrades',
      'SIGNED: fills of a symbol (weight 20, 5 with orderId)',
      [q('symbol', 'required'), q('orderId', 'of this order'), q('fromId', 'from this trade on'), ...page],
      ok('trades', v.array(TradeView)),
    ),
  ];
}
