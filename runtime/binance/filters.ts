/**
 * Binance's symbol filters applied to an order (docs/exchange-api.md#binance-market-data): the
 * first one an order fails, named as Binance names it in "Filter failure: <name>" (-1013). The
 * order routes check every order here before the engine sees it.
 */
import { dec, ZERO, type Decimal } from '../../machines/exchange/money.ts';
import type { SymbolRules } from './symbols.ts';

/** A filter's name as Binance writes it. */
export type FilterName = 'PRICE_FILTER' | 'LOT_SIZE' | 'MARKET_LOT_SIZE' | 'NOTIONAL';

/** What an order asks, as far as the filters look. */
export interface OrderToFilter {
  type: 'LIMIT' | 'LIMIT_MAKER' | 'MARKET';
  /** LIMIT, LIMIT_MAKER */
  price?: Decimal;
  /** base quantity (absent on a MARKET order by quote amount) */
  quantity?: Decimal;
  /** MARKET by quote amount */
  quoteOrderQty?: Decimal;
  /** the price a MARKET order's notional is judged at (Binance: a recent average; here the book's mid) */
  referencePrice?: Decimal;
}

const onStep = (value: Decimal, min: Decimal, step: Decimal): boolean => step.isZero() || value.minus(min).mod(step).isZero();
const within = (value: Decimal, min: Decimal, max: Decimal): boolean => value.gte(min) && (max.isZero() || value.lte(max));

/** The first filter `order` fails, or null when it passes them all. */
export function failedFilter(rules: SymbolRules, order: OrderToFilter): FilterName | null {
  const [minPrice, maxPrice, tick] = [dec(rules.minPrice), dec(rules.maxPrice), dec(rules.tickSize)];
  const [minQty, maxQty, step] = [dec(rules.minQty), dec(rules.maxQty), dec(rules.stepSize)];
  if (order.type !== 'MARKET') {
    const price = order.price ?? ZERO;
    if (!within(price, minPrice, maxPrice) || !onStep(price, minPrice, tick)) return 'PRICE_FILTER';
  }
  if (order.quantity !== undefined) {
    if (!within(order.quantity, minQty, maxQty) || !onStep(order.quantity, minQty, step)) return 'LOT_SIZE';
    if (order.type === 'MARKET' && !within(order.quantity, ZERO, dec(rules.marketMaxQty))) return 'MARKET_LOT_SIZE';
  }
  const notional =
    order.type === 'MARKET'
      ? (order.quoteOrderQty ?? (order.quantity && order.referencePrice ? order.quantity.times(order.referencePrice) : undefined))
      : order.quantity && order.price && order.quantity.times(order.price);
  if (notional === undefined) return null;
  if (notional.lt(dec(rules.minNotional))) return 'NOTIONAL';
  // maxNotional applies to limit orders only (applyMaxToMarket: false)
  if (order.type !== 'MARKET' && notional.gt(dec(rules.maxNotional))) return 'NOTIONAL';
  return null;
}
