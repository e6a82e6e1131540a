/**
 * The venue's public trades under /api/v3 (docs/exchange-api.md#binance-trades): `trades`,
 * `historicalTrades`, `aggTrades` and `avgPrice`, from the trade tape, with Binance's weights and
 * the parameter checks of the other market data routes.
 */
import { TAPE_CAPACITY } from '../../adapters/store/tape/port.ts';
import type { BinanceContext } from '../../runtime/binance/context.ts';
import { aggTradeView, averagePrice, AVG_PRICE_MINUTES, tradesBetween, tradeView } from '../../runtime/binance/tape-views.ts';
import type { Router } from '../http/router.ts';
import { binance } from './errors.ts';
import { midOf } from './market-routes.ts';
import type { BinanceParams } from './params.ts';
import { binanceRoute } from './route.ts';

const V3 = '/api/v3';

/** `limit`: 1..1000, 500 when absent (-1130 outside). */
function limitOf(p: BinanceParams): number {
  const limit = p.integer('limit') ?? 500;
  if (limit < 1 || limit > 1000) throw binance.invalidParam('limit');
  return limit;
}

/** Mounts the trade routes. */
export function mountBinanceTradeRoutes(router: Router, ctx: BinanceContext): void {
  const route = (path: string, spec: Parameters<typeof binanceRoute>[4], handler: Parameters<typeof binanceRoute>[5]) =>
    binanceRoute(router, ctx, 'GET', `${V3}${path}`, spec, handler);
  const tape = ctx.tape.store;

  route('/trades', { weight: 25, params: ['symbol', 'limit'] }, async (p) => {
    const symbol = p.symbol();
    return (await tape.latest(symbol, limitOf(p))).map(tradeView);
  });

  // Binance asks for an API key here; the tape is public, so none is read (docs/exchange-api.md#binance-trades)
  route('/historicalTrades', { weight: 25, params: ['symbol', 'limit', 'fromId'] }, async (p) => {
    const symbol = p.symbol();
    const limit = limitOf(p);
    const fromId = p.id('fromId');
    return (fromId === undefined ? await tape.latest(symbol, limit) : await tape.from(symbol, fromId, limit)).map(tradeView);
  });

  route('/aggTrades', { weight: 4, params: ['symbol', 'fromId', 'startTime', 'endTime', 'limit'] }, async (p) => {
    const symbol = p.symbol();
    const limit = limitOf(p);
    const fromId = p.id('fromId');
    const startTime = p.integer('startTime');
    const endTime = p.integer('endTime');
    if (fromId !== undefined && (startTime !== undefined || endTime !== undefined)) throw binance.badCombo();
    if (startTime !== undefined && endTime !== undefined && startTime > endTime) throw binance.invalidParam('startTime');
    if (fromId !== undefined) return (await tape.from(symbol, fromId, limit)).map(aggTradeView);
    if (startTime === undefined && endTime === undefined) return (await tape.latest(symbol, limit)).map(aggTradeView);
    return tradesBetween(await tape.latest(symbol, TAPE_CAPACITY), { startTime, endTime, limit }).map(aggTradeView);
  });

  route('/avgPrice', { weight: 2, params: ['symbol'] }, async (p, _s, now) => {
    const symbol = p.symbol();
    const traded = averagePrice(await tape.latest(symbol, TAPE_CAPACITY), now);
    if (traded) return { mins: AVG_PRICE_MINUTES, ...traded };
    // no trade in the last 5 minutes: the mid of the fresh book
    const numbered = ctx.books.of(symbol);
    if (!numbered || !ctx.exchange.books.isFresh(numbered.book)) throw binance.disconnected();
    return { mins: AVG_PRICE_MINUTES, price: midOf(numbered.book), closeTime: now };
  });
}
