/**
 * The user data stream's events as Binance sends them (docs/exchange-api.md#binance-user-data-stream),
 * made from the account events (`runtime/exchange/account-events.ts`): an order event is an
 * `executionReport` (an engine order's), a balance event an `outboundAccountPosition`, a cash
 * movement a `balanceUpdate`. Order and trade ids are the account's integer ids
 * (docs/orders.md#ids); amounts with 8 fraction digits, times in ms. The native stream's `fill`
 * events (a native market order's book levels) have no Binance form: that order is not one of this
 * surface, and its balances say what it moved.
 */
import type { AccountEvent } from '../../../runtime/exchange/account-events.ts';
import { fmt8 } from '../../../runtime/binance/book-sequence.ts';

type OrderEvent = Extract<AccountEvent, { type: 'order' }>;

/** Binance's expiry reason of an order that expired (`eR`). */
const expiryReason = (o: OrderEvent): string => (o.orderType === 'MARKET' ? 'INSUFFICIENT_LIQUIDITY' : 'UNFILLED_IOC_QUANTITY_EXPIRED');

/** The `executionReport` of an order event. */
export function executionReport(o: OrderEvent, executionId: number): Record<string, unknown> {
  const fill = o.lastFill;
  const working = (o.status === 'NEW' || o.status === 'PARTIALLY_FILLED') && o.orderType !== 'MARKET';
  return {
    e: 'executionReport',
    E: o.time,
    s: o.symbol,
    // a cancel's report: c is the cancel's own client id (when it had one), C the canceled order's
    c: o.execution === 'CANCELED' ? (o.ids?.cancel ?? o.clientOrderId) : o.clientOrderId,
    S: o.side,
    o: o.orderType,
    f: o.timeInForce ?? 'GTC',
    q: fmt8(o.origQty),
    p: fmt8(o.price ?? '0'),
    P: '0.00000000',
    F: '0.00000000',
    g: -1,
    C: o.execution === 'CANCELED' ? o.clientOrderId : '',
    x: o.execution,
    X: o.status,
    r: 'NONE',
    i: o.ids?.order ?? -1,
    l: fmt8(fill?.qty ?? '0'),
    z: fmt8(o.executedQty),
    L: fmt8(fill?.price ?? '0'),
    n: fill ? fmt8(fill.commission) : '0',
    N: fill ? fill.commissionAsset : null,
    T: fill?.time ?? o.time,
    t: fill ? (o.ids?.trade ?? -1) : -1,
    I: executionId,
    w: working,
    m: fill?.liquidity === 'MAKER',
    M: false,
    O: o.createdAt,
    Z: fmt8(o.cumulativeQuoteQty),
    Y: fmt8(fill?.quoteQty ?? '0'),
    Q: fmt8(o.quoteOrderQty ?? '0'),
    ...(working ? { W: o.createdAt } : {}),
    V: 'NONE',
    ...(o.execution === 'EXPIRED' ? { eR: expiryReason(o) } : {}),
  };
}

/** The Binance events of one account event, in the order they are sent; `executionId` is the report's `I`. */
export function userDataEvents(e: AccountEvent, executionId: number): Record<string, unknown>[] {
  switch (e.type) {
    case 'order':
      return [executionReport(e, executionId)];
    case 'balance':
      return [{ e: 'outboundAccountPosition', E: e.time, u: e.time, B: e.balances.map((b) => ({ a: b.asset, f: fmt8(b.free), l: fmt8(b.locked) })) }];
    case 'cash':
      return [{ e: 'balanceUpdate', E: e.time, a: e.asset, d: fmt8(e.amount), T: e.time }];
    case 'fill':
      return [];
  }
}
