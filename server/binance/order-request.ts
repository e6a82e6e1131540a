/**
 * A Binance new-order request read and checked as Binance does (docs/exchange-api.md#binance-orders):
 * the parameters each type needs and refuses (-1102, -1106, -1115, -1116, -1117, -1100 for a
 * number that is not one), the symbol's filters (-1013 "Filter failure: ..."), then what the
 * order engine is asked. `POST /api/v3/order` and `order/test` share it, so the test endpoint
 * refuses exactly what the real one refuses before the engine.
 */
import type { BookSymbol } from '../../kernel/domain.ts';
import { dec, type Decimal } from '../../machines/exchange/money.ts';
import type { EngineOrderType, TimeInForce } from '../../machines/engine-order.ts';
import type { BinanceContext } from '../../runtime/binance/context.ts';
import { failedFilter } from '../../runtime/binance/filters.ts';
import { SYMBOL_RULES } from '../../runtime/binance/symbols.ts';
import type { PlaceRequest } from '../../runtime/exchange/engine/types.ts';
import { binance } from './errors.ts';
import type { BinanceParams } from './params.ts';

/** The parameters a new order may send (besides the signing ones). */
export const NEW_ORDER_PARAMS = [
  'symbol',
  'side',
  'type',
  'timeInForce',
  'quantity',
  'quoteOrderQty',
  'price',
  'newClientOrderId',
  'newOrderRespType',
  'selfTradePreventionMode',
] as const;

/** How much of the order the answer shows (Binance's `newOrderRespType`). */
export type RespType = 'ACK' | 'RESULT' | 'FULL';

/** A checked new order: what the engine is asked, and how to answer. */
export interface NewOrder {
  request: Omit<PlaceRequest, 'accountId'>;
  respType: RespType;
}

const DECIMAL_TEXT = /^([0-9]{1,20})(\.[0-9]{1,20})?$/;
const DECIMAL_LEGAL = '^([0-9]{1,20})(\\.[0-9]{1,20})?$';
/** exchangeInfo's `baseAssetPrecision` and `quotePrecision` of every symbol. */
const ASSET_PRECISION = 8;
const CLIENT_ID_TEXT = /^[a-zA-Z0-9-_]{1,36}$/;
const CLIENT_ID_LEGAL = '^[a-zA-Z0-9-_]{1,36}$';
const STOP_TYPES: Record<string, string> = {
  STOP_LOSS: 'Stop loss orders are not supported for this symbol.',
  STOP_LOSS_LIMIT: 'Stop loss limit orders are not supported for this symbol.',
  TAKE_PROFIT: 'Take profit orders are not supported for this symbol.',
  TAKE_PROFIT_LIMIT: 'Take profit limit orders are not supported for this symbol.',
};
const STP_MODES = ['NONE', 'EXPIRE_TAKER', 'EXPIRE_MAKER', 'EXPIRE_BOTH'];

/** A decimal parameter, or undefined when absent (-1100 when it is not a decimal). */
function decimalParam(p: BinanceParams, name: string): Decimal | undefined {
  const text = p.raw(name);
  if (text === undefined) return undefined;
  if (text === '') throw binance.mandatory(name);
  if (!DECIMAL_TEXT.test(text)) throw binance.illegalChars(name, DECIMAL_LEGAL);
  // more fraction digits than the assets' precision (8) is -1111, before any filter looks
  if ((text.split('.')[1] ?? '').replace(/0+$/, '').length > ASSET_PRECISION) throw binance.badPrecision(name);
  return dec(text);
}

/** A client order id parameter, or undefined when absent (-1100 for other characters; `empty` when sent empty). */
export function clientIdParam(p: BinanceParams, name: string, empty: () => Error): string | undefined {
  const text = p.raw(name);
  if (text === undefined) return undefined;
  if (text === '') throw empty();
  if (!CLIENT_ID_TEXT.test(text)) throw binance.illegalChars(name, CLIENT_ID_LEGAL);
  return text;
}

/** The type and time in force, as Binance refuses them. */
function typeOf(p: BinanceParams): { type: EngineOrderType; timeInForce?: TimeInForce } {
  const type = p.required('type');
  if (STOP_TYPES[type]) throw binance.orderRejected(STOP_TYPES[type]);
  if (type !== 'LIMIT' && type !== 'LIMIT_MAKER' && type !== 'MARKET') throw binance.badOrderType();
  const tif = p.raw('timeInForce');
  if (type !== 'LIMIT') {
    if (tif !== undefined) throw binance.notRequired('timeInForce');
    return { type };
  }
  const timeInForce = p.required('timeInForce');
  if (timeInForce !== 'GTC' && timeInForce !== 'IOC' && timeInForce !== 'FOK') throw binance.badTimeInForce();
  return { type, timeInForce };
}

/** Reads and checks a new order; throws Binance's error for the first thing wrong with it. */
export function readNewOrder(ctx: BinanceContext, p: BinanceParams): NewOrder {
  const symbol: BookSymbol = p.symbol();
  const side = p.required('side');
  if (side !== 'BUY' && side !== 'SELL') throw binance.badSide();
  const { type, timeInForce } = typeOf(p);
  const quantity = decimalParam(p, 'quantity');
  const quoteOrderQty = decimalParam(p, 'quoteOrderQty');
  const price = decimalParam(p, 'price');
  if (type === 'MARKET') {
    if (price !== undefined) throw binance.notRequired('price');
    if (quantity === undefined && quoteOrderQty === undefined) throw binance.eitherParam('quantity', 'quoteOrderQty');
    if (quantity !== undefined && quoteOrderQty !== undefined) throw binance.notRequired('quoteOrderQty');
  } else {
    if (quantity === undefined) throw binance.mandatory('quantity');
    if (price === undefined) throw binance.mandatory('price');
    if (quoteOrderQty !== undefined) throw binance.notRequired('quoteOrderQty');
  }
  const clientOrderId = clientIdParam(p, 'newClientOrderId', binance.emptyClientOrderId);
  const respType = p.raw('newOrderRespType') ?? (type === 'LIMIT_MAKER' ? 'ACK' : 'FULL');
  if (respType !== 'ACK' && respType !== 'RESULT' && respType !== 'FULL') throw binance.invalidParam('newOrderRespType');
  // accepted and checked; orders never meet each other here, so no mode has anything to prevent
  const stp = p.raw('selfTradePreventionMode');
  if (stp !== undefined && !STP_MODES.includes(stp)) throw binance.invalidParam('selfTradePreventionMode');
  // a MARKET order by quantity is judged at the book's mid (Binance: a recent average price)
  const book = ctx.exchange.books.fresh(symbol);
  const [bid, ask] = [book?.bids[0]?.[0], book?.asks[0]?.[0]];
  const referencePrice = bid && ask ? dec(bid).plus(ask).div(2) : undefined;
  const failed = failedFilter(SYMBOL_RULES[symbol], {
    type,
    ...(price === undefined ? {} : { price }),
    ...(quantity === undefined ? {} : { quantity }),
    ...(quoteOrderQty === undefined ? {} : { quoteOrderQty }),
    ...(referencePrice === undefined ? {} : { referencePrice }),
  });
  if (failed) throw binance.filterFailure(failed);
  return {
    request: {
      symbol,
      side,
      type,
      ...(timeInForce === undefined ? {} : { timeInForce }),
      // past the filters every number is on its step: at most 8 fraction digits, written plainly
      ...(quantity === undefined ? {} : { quantity: quantity.toFixed() }),
      ...(quoteOrderQty === undefined ? {} : { quoteOrderQty: quoteOrderQty.toFixed() }),
      ...(price === undefined ? {} : { price: price.toFixed() }),
      ...(clientOrderId === undefined ? {} : { clientOrderId }),
    },
    respType,
  };
}
