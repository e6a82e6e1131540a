/**
 * The exchange document's Binance order routes (docs/exchange-api.md#binance-orders): `order`
 * (POST with a form body, GET, DELETE), `order/test`, `openOrders`, `allOrders` and `myTrades`,
 * their answers, and the `X-MBX-ORDER-COUNT-*` headers of a new order.
 */
import * as v from 'valibot';
import { json, type OperationSpec, type ParameterSpec, type ResponseSpec } from './document.ts';
import { berr, binanceErrors, BinanceErrorView, ok, q, WEIGHT } from './exchange-binance.ts';

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
/** An order's or a trade's integer id in its account (docs/orders.md#ids). */
const Id = v.pipe(v.number(), v.integer(), v.minValue(1));
const Ack = { symbol: v.string(), orderId: Id, orderListId: v.literal(-1), clientOrderId: v.string(), transactTime: v.number() };
const Fill = v.strictObject({ price: d8, qty: d8, commission: d8, commissionAsset: v.string(), tradeId: Id });
/** `POST /api/v3/order`: ACK, RESULT or FULL. */
const NewOrderView = v.union([
  v.strictObject({ ...Ack, ...OrderCore, workingTime: v.number(), fills: v.array(Fill) }),
  v.strictObject({ ...Ack, ...OrderCore, workingTime: v.number() }),
  v.strictObject(Ack),
]);
const OrderView = v.strictObject({
  symbol: v.string(),
  orderId: Id,
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
  id: Id,
  orderId: Id,
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
export function binanceOrderOperations(): OperationSpec[] {
  const errors = binanceErrors();
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
  const ref = [q('symbol', 'required'), q('orderId', "the order's integer id"), q('origClientOrderId', "the client's id")];
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
      [q('symbol', 'required'), q('orderId', 'orders with this integer id or above'), ...page],
      ok('orders', v.array(OrderView)),
    ),
    op(
      'get',
      '/myTrades',
      'SIGNED: fills of a symbol (weight 20, 5 with orderId)',
      [q('symbol', 'required'), q('orderId', 'of this order (its integer id)'), q('fromId', 'trades with this integer id or above'), ...page],
      ok('trades', v.array(TradeView)),
    ),
  ];
}
