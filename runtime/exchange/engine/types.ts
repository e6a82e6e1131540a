/**
 * The order engine's vocabulary (docs/orders.md): what a surface asks (place, cancel, reads), the
 * refusal codes it gets back (`kernel/refusal.ts`), and the views it answers with. Binance-like
 * words (LIMIT / LIMIT_MAKER / MARKET, GTC / IOC / FOK, NEW ... EXPIRED), decimal strings with 10
 * fraction digits.
 */
import type { Result } from '../../../kernel/refusal.ts';
import type { BookSymbol } from '../../../kernel/domain.ts';
import type { EngineOrderStatus, EngineOrderType, OrderFill, TimeInForce } from '../../../machines/engine-order.ts';
import type { TradeRecord } from '../../../adapters/store/exchange/port.ts';

/** An order as a surface places it. Quantities and prices are decimal strings (validated here: positive, at most 10 fraction digits). */
export interface PlaceRequest {
  accountId: string;
  symbol: BookSymbol;
  side: 'BUY' | 'SELL';
  type: EngineOrderType;
  /** LIMIT only (GTC when absent) */
  timeInForce?: TimeInForce;
  /** base quantity: LIMIT, LIMIT_MAKER, and MARKET unless `quoteOrderQty` is given */
  quantity?: string;
  /** MARKET only: the USDT to spend (BUY) or to receive (SELL), gross of the fee */
  quoteOrderQty?: string;
  /** LIMIT and LIMIT_MAKER */
  price?: string;
  /** unique per account, for good; generated when absent */
  clientOrderId?: string;
}

/** How a cancel or a read names an order. */
export type OrderRef = { orderId: string } | { clientOrderId: string };
/** How a read names an order: also by its integer id (docs/orders.md#ids). */
export type OrderReadRef = OrderRef | { number: number };

/**
 * Refusal codes (a surface maps them: docs/orders.md#refusals):
 * INVALID_ORDER (malformed: a missing or non-positive quantity or price, a field that does not fit the type),
 * ACCOUNT_NOT_FOUND, INSUFFICIENT_FUNDS (free cash), INSUFFICIENT_POSITION (free position),
 * PRICE_UNAVAILABLE (MARKET without a fresh book or with nothing left to take),
 * WOULD_TAKE (a LIMIT_MAKER that would take), DUPLICATE_CLIENT_ORDER_ID,
 * UNKNOWN_ORDER (no such order of this account and symbol), ORDER_NOT_OPEN (cancel of a final order).
 */
export type EngineRefusalCode =
  | 'INVALID_ORDER'
  | 'ACCOUNT_NOT_FOUND'
  | 'INSUFFICIENT_FUNDS'
  | 'INSUFFICIENT_POSITION'
  | 'PRICE_UNAVAILABLE'
  | 'WOULD_TAKE'
  | 'DUPLICATE_CLIENT_ORDER_ID'
  | 'UNKNOWN_ORDER'
  | 'ORDER_NOT_OPEN';

/** A value, or a refusal with an engine code. */
export type EngineResult<T> = Result<T, EngineRefusalCode>;

/** An order as the engine answers it. */
export interface OrderView {
  orderId: string;
  /** the order's integer id in its account (docs/orders.md#ids) */
  number: number;
  clientOrderId: string;
  accountId: string;
  symbol: BookSymbol;
  side: 'BUY' | 'SELL';
  type: EngineOrderType;
  timeInForce: TimeInForce | null;
  status: EngineOrderStatus;
  price: string | null;
  origQty: string;
  quoteOrderQty: string | null;
  executedQty: string;
  cumulativeQuoteQty: string;
  /** commission of every fill, in USDT */
  commission: string;
  /** what the order still holds (USDT for a BUY, the base asset for a SELL) */
  locked: string;
  /** unix ms */
  time: number;
  updateTime: number;
  lastFill: OrderFill | null;
}

/** A fill as the engine answers it: with its own integer id and its order's (docs/orders.md#ids). */
export type NumberedTrade = TradeRecord & { number: number; orderNumber: number };

/** A placed order: the order after placement, with the fills it made then (Binance's FULL answer). */
export interface PlacedOrder {
  order: OrderView;
  fills: NumberedTrade[];
}

/**
 * The ids an order event is about (docs/orders.md#ids): the order's, the fill's (-1 when the event
 * is no fill), and on a cancel the cancel request's own client id when it had one.
 */
export interface EventIds {
  order: number;
  trade: number;
  cancel?: string;
}

/** One asset's balances: `free` + `locked` is what the account holds. */
export interface BalanceView {
  asset: 'USDT' | 'BTC' | 'ETH' | 'SOL';
  free: string;
  locked: string;
}

/** The base asset of a symbol. */
export const baseAssetOf = (symbol: BookSymbol): 'BTC' | 'ETH' | 'SOL' => symbol.slice(0, -4) as 'BTC' | 'ETH' | 'SOL';
