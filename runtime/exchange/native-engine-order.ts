/**
 * A native market order (docs/exchange-api.md#place) among the engine's orders (docs/orders.md#ids):
 * the order's own commit also saves it as a `MARKET` order of the engine, by quantity, with its
 * fills as the engine's fills (taker, at the price and quantity of each book level it took; the fee
 * split cumulatively, so the fills add up to exactly the order's fee), `FILLED`, or `EXPIRED` when the
 * book's depth did not cover it (the native `PARTIALLY_FILLED`). So the Binance surface lists it
 * (`allOrders`, `myTrades`) and reports it (`executionReport`) with the same integer ids as the
 * engine's own orders. Its client order id is `native-<orderId>`.
 */
import type { AccountBundle, EngineOrderWrite, OrderRecord, TradeRecord } from '../../adapters/store/exchange/port.ts';
import { engineOrderSteps, type OrderFill } from '../../machines/engine-order.ts';
import { tradeFee } from '../../machines/exchange/ledger.ts';
import { dec, fmt, ZERO } from '../../machines/exchange/money.ts';
import { orderWrite } from './engine/core.ts';

/** What the commit of a native market order writes among the engine's records. */
export interface NativeEngineRecords {
  engineOrders: EngineOrderWrite[];
  trades: TradeRecord[];
}

/** The engine records of `order`, placed on `bundle` at `time` (unix ms) from the book of `bookTs`. */
export function nativeEngineRecords(order: OrderRecord, bundle: AccountBundle, bookTs: number, time: number): NativeEngineRecords {
  const { account, lastIds } = bundle;
  const number = lastIds.order + 1;
  const clientOrderId = `native-${order.orderId}`;
  let s = engineOrderSteps.start({
    orderId: order.orderId,
    number,
    accountId: account.id,
    clientOrderId,
    symbol: order.symbol,
    side: order.side,
    type: 'MARKET',
    timeInForce: null,
    price: null,
    origQty: order.requestedQty,
    quoteOrderQty: null,
    makerRate: (account.makerFeeRate ?? account.feeRate).toFixed(),
    takerRate: account.feeRate.toFixed(),
    lockAsset: null,
    locked: '0',
    restingQty: '0',
    createdAt: time,
  });
  const trades: TradeRecord[] = [];
  let grossBefore = ZERO;
  for (const f of order.fills) {
    const grossAfter = grossBefore.plus(f.gross);
    const commission = tradeFee(grossAfter, account.feeRate).minus(tradeFee(grossBefore, account.feeRate));
    grossBefore = grossAfter;
    const fill: OrderFill = {
      tradeId: `${order.orderId}-${trades.length + 1}`,
      price: f.price,
      qty: f.qty,
      quoteQty: f.gross,
      commission: fmt(commission),
      liquidity: 'TAKER',
      bookTs,
      time,
    };
    s = engineOrderSteps.send(s, { type: 'FILL', fill, release: '0' });
    trades.push({
      ...fill,
      number: lastIds.trade + trades.length + 1,
      orderId: order.orderId,
      orderNumber: number,
      clientOrderId,
      symbol: order.symbol,
      side: order.side,
      commissionAsset: 'USDT',
    });
  }
  if (dec(order.qty).lt(order.requestedQty)) s = engineOrderSteps.send(s, { type: 'EXPIRE', time });
  return { engineOrders: [orderWrite(s)], trades };
}
