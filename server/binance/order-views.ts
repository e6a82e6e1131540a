/**
 * The engine's orders and fills as Binance answers them (docs/exchange-api.md#binance-orders):
 * the ACK / RESULT / FULL answers of a new order, the order of `GET order`, `openOrders` and
 * `allOrders`, the canceled order of `DELETE order`, and the trades of `myTrades`. Order and trade
 * ids are the account's integer ids (docs/orders.md#ids); amounts have 8 fraction digits; every
 * order is on its own (`orderListId` -1).
 */
import { dec, fmt } from '../../machines/exchange/money.ts';
import type { NumberedTrade, OrderView, PlacedOrder } from '../../runtime/exchange/engine/types.ts';
import type { RespType } from './order-request.ts';

const d8 = (s: string | null): string => fmt(dec(s ?? '0'), 8);
/** Orders never meet each other here (they fill against the feed's books): every order shows exchangeInfo's default mode. */
const STP = 'EXPIRE_MAKER';
/** Binance's status words; the engine never stores REJECTED. */
const status = (o: OrderView): string => o.status;
/** MARKET and LIMIT_MAKER orders answer GTC, as Binance's do. */
const tif = (o: OrderView): string => o.timeInForce ?? 'GTC';

/** What the order's answers share. */
function core(o: OrderView) {
  return {
    price: d8(o.price),
    origQty: d8(o.origQty),
    executedQty: d8(o.executedQty),
    origQuoteOrderQty: d8(o.quoteOrderQty),
    cummulativeQuoteQty: d8(o.cumulativeQuoteQty),
    status: status(o),
    timeInForce: tif(o),
    type: o.type,
    side: o.side,
  };
}

/** The answer of `POST /api/v3/order` in the asked shape. */
export function newOrderAnswer(placed: PlacedOrder, respType: RespType) {
  const o = placed.order;
  const ack = { symbol: o.symbol, orderId: o.number, orderListId: -1, clientOrderId: o.clientOrderId, transactTime: o.time };
  if (respType === 'ACK') return ack;
  const result = { ...ack, ...core(o), workingTime: o.time, selfTradePreventionMode: STP };
  if (respType === 'RESULT') return result;
  return {
    ...result,
    fills: placed.fills.map((f) => ({
      price: d8(f.price),
      qty: d8(f.qty),
      commission: d8(f.commission),
      commissionAsset: f.commissionAsset,
      tradeId: f.number,
    })),
  };
}

/** An order as `GET order`, `openOrders` and `allOrders` answer it. */
export function orderAnswer(o: OrderView) {
  return {
    symbol: o.symbol,
    orderId: o.number,
    orderListId: -1,
    clientOrderId: o.clientOrderId,
    ...core(o),
    stopPrice: '0.00000000',
    icebergQty: '0.00000000',
    time: o.time,
    updateTime: o.updateTime,
    isWorking: true,
    workingTime: o.time,
    selfTradePreventionMode: STP,
  };
}

/** A canceled order as `DELETE order` and `DELETE openOrders` answer it; `clientOrderId` is the cancel's own id. */
export function canceledAnswer(o: OrderView, cancelId: string, transactTime: number) {
  return {
    symbol: o.symbol,
    origClientOrderId: o.clientOrderId,
    orderId: o.number,
    orderListId: -1,
    clientOrderId: cancelId,
    transactTime,
    ...core(o),
    selfTradePreventionMode: STP,
  };
}

/** A fill as `myTrades` answers it. */
export function tradeAnswer(t: NumberedTrade) {
  return {
    symbol: t.symbol,
    id: t.number,
    orderId: t.orderNumber,
    orderListId: -1,
    price: d8(t.price),
    qty: d8(t.qty),
    quoteQty: d8(t.quoteQty),
    commission: d8(t.commission),
    commissionAsset: t.commissionAsset,
    time: t.time,
    isBuyer: t.side === 'BUY',
    isMaker: t.liquidity === 'MAKER',
    isBestMatch: true,
  };
}
