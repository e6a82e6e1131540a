/**
 * The venue's public trades under /api/v3 in the exchange's OpenAPI document
 * (docs/exchange-api.md#binance-trades): `trades`, `historicalTrades`, `aggTrades`, `avgPrice`.
 */
import * as v from 'valibot';
import { binanceErrors, ok, q } from './exchange-binance.ts';
import type { OperationSpec, ParameterSpec, ResponseSpec } from './document.ts';

const Id = v.pipe(v.number(), v.safeInteger());
/** A trade of `trades` and `historicalTrades`. */
export const TradeView = v.strictObject({
  id: Id,
  price: v.string(),
  qty: v.string(),
  quoteQty: v.string(),
  time: v.number(),
  isBuyerMaker: v.boolean(),
  isBestMatch: v.literal(true),
});
/** An aggregate trade of `aggTrades`. */
export const AggTradeView = v.strictObject({ a: Id, p: v.string(), q: v.string(), f: Id, l: Id, T: v.number(), m: v.boolean(), M: v.literal(true) });
/** The answer of `avgPrice`. */
export const AvgPriceView = v.strictObject({ mins: v.number(), price: v.string(), closeTime: v.number() });

/** The trade routes. */
export function binanceTradeOperations(): OperationSpec[] {
  const errors = binanceErrors();
  const op = (path: string, summary: string, parameters: ParameterSpec[], body: ResponseSpec): OperationSpec => ({
    method: 'get',
    path: `/api/v3${path}`,
    summary,
    tags: ['binance'],
    parameters,
    responses: { 200: body, ...errors },
    extensions: { 'x-binance': true },
  });
  const limit = q('limit', 'default 500, max 1000');
  return [
    op('/trades', "The venue's newest trades, oldest first (weight 25)", [q('symbol', 'required'), limit], ok('trades', v.array(TradeView))),
    op(
      '/historicalTrades',
      'Trades from fromId on, or the newest (weight 25; no API key needed)',
      [q('symbol', 'required'), limit, q('fromId', 'trade id, inclusive')],
      ok('trades', v.array(TradeView)),
    ),
    op(
      '/aggTrades',
      'Aggregate trades, one per trade (weight 4)',
      [q('symbol', 'required'), q('fromId', 'trade id, inclusive'), q('startTime', 'ms'), q('endTime', 'ms'), limit],
      ok('aggregate trades', v.array(AggTradeView)),
    ),
    op(
      '/avgPrice',
      'Volume-weighted price of the last 5 minutes of trades, or the mid (weight 2)',
      [q('symbol', 'required')],
      ok('average price', AvgPriceView),
    ),
  ];
}
