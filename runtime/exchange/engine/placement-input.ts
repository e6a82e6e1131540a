/**
 * Checks a placement request's shape (docs/orders.md#placing): which fields each order type needs
 * and allows, and that quantities and prices are positive decimals with at most 10 fraction
 * digits. Filters (tick size, lot size, notional) are the surface's job.
 */
import { ok, refuse } from '../../../kernel/refusal.ts';
import type { BookSymbol } from '../../../kernel/domain.ts';
import type { EngineOrderType, TimeInForce } from '../../../machines/engine-order.ts';
import { dec, type Decimal } from '../../../machines/exchange/money.ts';
import { POSITIVE_DECIMAL } from './core.ts';
import type { EngineResult, PlaceRequest } from './types.ts';

/** A placement with its numbers parsed. */
export interface ParsedPlacement {
  symbol: BookSymbol;
  side: 'BUY' | 'SELL';
  type: EngineOrderType;
  timeInForce: TimeInForce | null;
  /** base quantity; null for MARKET by quote */
  qty: Decimal | null;
  quote: Decimal | null;
  price: Decimal | null;
}

const invalid = (message: string) => refuse('INVALID_ORDER' as const, message);

/** A positive decimal field, absent, or the reason it is neither. */
function amount(name: string, text: string | undefined): Decimal | null | string {
  if (text === undefined) return null;
  if (!POSITIVE_DECIMAL.test(text) || dec(text).lte(0)) return `${name} must be a positive decimal string with at most 10 fraction digits`;
  return dec(text);
}

/** The parsed placement, or INVALID_ORDER naming what is wrong. */
export function parsePlacement(req: PlaceRequest): EngineResult<ParsedPlacement> {
  const qty = amount('quantity', req.quantity);
  const quote = amount('quoteOrderQty', req.quoteOrderQty);
  const price = amount('price', req.price);
  for (const x of [qty, quote, price]) if (typeof x === 'string') return invalid(x);
  const [q, qq, p] = [qty as Decimal | null, quote as Decimal | null, price as Decimal | null];
  if (req.clientOrderId !== undefined && (req.clientOrderId.length === 0 || req.clientOrderId.length > 100)) {
    return invalid('clientOrderId must have 1 to 100 characters');
  }
  const base = { symbol: req.symbol, side: req.side, type: req.type };
  if (req.type === 'MARKET') {
    if (p !== null || req.timeInForce !== undefined) return invalid('a MARKET order takes neither price nor timeInForce');
    if ((q === null) === (qq === null)) return invalid('a MARKET order takes exactly one of quantity and quoteOrderQty');
    return ok({ ...base, timeInForce: null, qty: q, quote: qq, price: null });
  }
  if (q === null || p === null) return invalid(`a ${req.type} order needs quantity and price`);
  if (qq !== null) return invalid(`a ${req.type} order takes no quoteOrderQty`);
  if (req.type === 'LIMIT_MAKER') {
    if (req.timeInForce !== undefined) return invalid('a LIMIT_MAKER order takes no timeInForce');
    return ok({ ...base, timeInForce: null, qty: q, quote: null, price: p });
  }
  return ok({ ...base, timeInForce: req.timeInForce ?? 'GTC', qty: q, quote: null, price: p });
}
