/**
 * Binance's order routes under /api/v3 (docs/exchange-api.md#binance-orders), thin handlers over
 * the order engine (docs/orders.md): `order` (POST, GET, DELETE), `order/test`, `openOrders` (GET,
 * DELETE), `allOrders` and `myTrades`. Each reads and checks its parameters as Binance does, asks
 * the engine for the signer's own account only, and maps the engine's refusals to Binance's codes
 * and messages.
 */
import type { BookSymbol } from '../../kernel/domain.ts';
import type { BinanceContext } from '../../runtime/binance/context.ts';
import { randomKeyText } from '../../runtime/binance/api-keys.ts';
import { historyPage } from '../../runtime/binance/history-page.ts';
import type { EngineRefusalCode, EngineResult, OrderReadRef } from '../../runtime/exchange/engine/types.ts';
import type { Router } from '../http/router.ts';
import { binance, type BinanceError } from './errors.ts';
import { clientIdParam, NEW_ORDER_PARAMS, readNewOrder } from './order-request.ts';
import { canceledAnswer, newOrderAnswer, orderAnswer, tradeAnswer } from './order-views.ts';
import type { BinanceParams } from './params.ts';
import { binanceRoute, type BinanceRouteSpec } from './route.ts';
import type { Signer } from './signed.ts';
import { commissionRatesOf } from './commission.ts';

const V3 = '/api/v3';
const ORIG_CLIENT_ID_TEXT = /^[\x21-\x7e]{1,100}$/;
const DAY_MS = 86_400_000;
const NO_LIQUIDITY = 'Order book liquidity is less than LOT_SIZE filter minimum quantity.';

/** Binance's answer to an engine refusal; `reading`: a GET (-2013) rather than a cancel (-2011). */
function refusalOf(code: EngineRefusalCode, message: string, reading = false): BinanceError {
  switch (code) {
    case 'ACCOUNT_NOT_FOUND':
      return binance.rejectedKey();
    case 'INSUFFICIENT_FUNDS':
    case 'INSUFFICIENT_POSITION':
      return binance.orderRejected('Account has insufficient balance for requested action.');
    case 'WOULD_TAKE':
      return binance.orderRejected('Order would immediately match and take.');
    case 'DUPLICATE_CLIENT_ORDER_ID':
      return binance.orderRejected('Duplicate order sent.');
    case 'PRICE_UNAVAILABLE':
      return binance.orderRejected('Market is closed.');
    case 'UNKNOWN_ORDER':
    case 'ORDER_NOT_OPEN':
      return reading ? binance.noSuchOrder() : binance.cancelRejected();
    case 'INVALID_ORDER':
      return binance.invalidOrder(message);
  }
}

/** The value, or Binance's error for the refusal. */
function valueOf<T>(r: EngineResult<T>, reading = false): T {
  if (!r.ok) throw refusalOf(r.code, r.message, reading);
  return r.value;
}

/** The order named by its integer `orderId` (docs/orders.md#ids) or `origClientOrderId` (-1102 when neither; -1100 when malformed). */
function orderRef(p: BinanceParams): { ref: OrderReadRef; clientOrderId?: string } {
  const clientOrderId = p.raw('origClientOrderId');
  if (clientOrderId === '') throw binance.emptyOrigClientOrderId();
  if (clientOrderId !== undefined && !ORIG_CLIENT_ID_TEXT.test(clientOrderId)) throw binance.illegalChars('origClientOrderId', '^[\\x21-\\x7e]{1,100}$');
  const number = p.id('orderId');
  if (number === undefined) {
    if (clientOrderId === undefined) throw binance.eitherParam('origClientOrderId', 'orderId');
    return { ref: { clientOrderId } };
  }
  return { ref: { number }, ...(clientOrderId === undefined ? {} : { clientOrderId }) };
}

/** `limit` (default 500, 1..1000) and a time window of at most 24 hours. */
function pageParams(p: BinanceParams) {
  const limit = p.integer('limit') ?? 500;
  if (limit < 1 || limit > 1000) throw binance.invalidParam('limit');
  const startTime = p.integer('startTime');
  const endTime = p.integer('endTime');
  if (startTime !== undefined && endTime !== undefined) {
    if (startTime > endTime) throw binance.invalidParam('startTime');
    if (endTime - startTime > DAY_MS) throw binance.tooLongWindow(24);
  }
  return { limit, startTime, endTime };
}

/** A fresh client id for an order or a cancel that did not name one (22 letters and digits, as Binance makes them). */
const generatedClientId = (): string => randomKeyText().slice(0, 22);

/** Mounts the order routes. */
export function mountBinanceOrderRoutes(router: Router, ctx: BinanceContext): void {
  const { engine } = ctx;
  const route = (
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    spec: Omit<BinanceRouteSpec, 'signed'>,
    handler: (p: BinanceParams, accountId: string, now: number) => unknown,
  ) =>
    binanceRoute(router, ctx, method, `${V3}${path}`, { ...spec, signed: true, body: method !== 'GET' }, (p, signer: Signer | undefined, now) => {
      if (!signer) throw binance.rejectedKey();
      // the signer's own account is the only one a request reaches (docs/exchange-api.md#binance-signing)
      return handler(p, signer.accountId, now);
    });

  /** The order `ref` names, checked against `origClientOrderId` when both were sent. */
  const named = async (p: BinanceParams, accountId: string, symbol: BookSymbol, reading: boolean) => {
    const { ref, clientOrderId } = orderRef(p);
    const order = valueOf(await engine.order(accountId, symbol, ref), reading);
    if (clientOrderId !== undefined && order.clientOrderId !== clientOrderId) throw reading ? binance.noSuchOrder() : binance.cancelRejected();
    return order;
  };

  route('POST', '/order', { weight: 1, params: NEW_ORDER_PARAMS, countsOrders: true }, async (p, accountId) => {
    const { request, respType } = readNewOrder(ctx, p);
    const placed = await engine.place({ ...request, clientOrderId: request.clientOrderId ?? generatedClientId(), accountId });
    // a MARKET order that finds nothing to take: no fresh book, or a book whose side earlier orders used up
    if (!placed.ok && placed.code === 'PRICE_UNAVAILABLE' && ctx.exchange.books.fresh(request.symbol)) throw binance.orderRejected(NO_LIQUIDITY);
    return newOrderAnswer(valueOf(placed), respType);
  });

  route(
    'POST',
    '/order/test',
    { weight: (p) => (p.raw('computeCommissionRates') === 'true' ? 20 : 1), params: [...NEW_ORDER_PARAMS, 'computeCommissionRates'] },
    async (p, accountId) => {
      const compute = p.raw('computeCommissionRates') ?? 'false';
      if (compute !== 'true' && compute !== 'false') throw binance.invalidParam('computeCommissionRates');
      readNewOrder(ctx, p);
      const loaded = await ctx.exchange.store.load(accountId);
      if (!loaded) throw binance.rejectedKey();
      if (compute === 'false') return {};
      const rates = commissionRatesOf(loaded.bundle.account);
      return {
        standardCommissionForOrder: { maker: rates.maker, taker: rates.taker },
        taxCommissionForOrder: { maker: '0.00000000', taker: '0.00000000' },
        discount: { enabledForAccount: false, enabledForSymbol: false, discountAsset: 'BNB', discount: '0.00000000' },
      };
    },
  );

  route('GET', '/order', { weight: 4, params: ['symbol', 'orderId', 'origClientOrderId'] }, async (p, accountId) =>
    orderAnswer(await named(p, accountId, p.symbol(), true)),
  );

  route('DELETE', '/order', { weight: 1, params: ['symbol', 'orderId', 'origClientOrderId', 'newClientOrderId'] }, async (p, accountId, now) => {
    const symbol = p.symbol();
    const cancelId = clientIdParam(p, 'newClientOrderId', binance.emptyClientOrderId) ?? generatedClientId();
    const order = await named(p, accountId, symbol, false);
    return canceledAnswer(valueOf(await engine.cancel(accountId, symbol, { orderId: order.orderId }, cancelId)), cancelId, now);
  });

  route('GET', '/openOrders', { weight: (p) => (p.raw('symbol') === undefined ? 80 : 6), params: ['symbol'] }, async (p, accountId) => {
    const symbol = p.raw('symbol') === undefined ? undefined : p.symbol();
    return valueOf(await engine.openOrders(accountId, symbol)).map(orderAnswer);
  });

  route('DELETE', '/openOrders', { weight: 1, params: ['symbol'] }, async (p, accountId, now) => {
    const symbol = p.symbol();
    const open = valueOf(await engine.openOrders(accountId, symbol));
    const canceled = [];
    for (const o of open) {
      const cancelId = generatedClientId();
      const r = await engine.cancel(accountId, symbol, { orderId: o.orderId }, cancelId);
      // an order that filled meanwhile is no longer open: it is simply not among the canceled
      if (r.ok) canceled.push(canceledAnswer(r.value, cancelId, now));
      else if (r.code !== 'ORDER_NOT_OPEN') throw refusalOf(r.code, r.message);
    }
    if (canceled.length === 0) throw binance.cancelRejected();
    return canceled;
  });

  route('GET', '/allOrders', { weight: 20, params: ['symbol', 'orderId', 'startTime', 'endTime', 'limit'] }, async (p, accountId) => {
    const symbol = p.symbol();
    const page = { ...pageParams(p), fromId: p.id('orderId') };
    const orders = valueOf(await engine.allOrders(accountId, symbol));
    return historyPage(
      orders,
      (o) => o.number,
      (o) => o.time,
      page,
    ).map(orderAnswer);
  });

  route(
    'GET',
    '/myTrades',
    { weight: (p) => (p.raw('orderId') === undefined ? 20 : 5), params: ['symbol', 'orderId', 'startTime', 'endTime', 'fromId', 'limit'] },
    async (p, accountId) => {
      const symbol = p.symbol();
      const [orderId, fromId] = [p.id('orderId'), p.id('fromId')];
      const page = { ...pageParams(p), fromId };
      // fromId goes with neither startTime nor endTime (Binance's combinations)
      if (fromId !== undefined && (page.startTime !== undefined || page.endTime !== undefined)) throw binance.badCombo();
      const trades = valueOf(await engine.myTrades(accountId, symbol)).filter((t) => orderId === undefined || t.orderNumber === orderId);
      return historyPage(
        trades,
        (t) => t.number,
        (t) => t.time,
        page,
      ).map(tradeAnswer);
    },
  );
}
