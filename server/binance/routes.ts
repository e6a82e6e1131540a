/**
 * The Binance Spot–shaped surface under /api/v3 on the exchange port (docs/exchange-api.md#binance-spot-api):
 * market data, the public trades, the signed account read, the order routes on the order engine, and, through
 * `mountBinanceStreams`, the market streams.
 */
import type { BinanceContext } from '../../runtime/binance/context.ts';
import type { Router } from '../http/router.ts';
import { mountBinanceAccountRoutes } from './account-routes.ts';
import { mountBinanceMarketRoutes } from './market-routes.ts';
import { mountBinanceOrderRoutes } from './order-routes.ts';
import { mountBinanceTradeRoutes } from './trade-routes.ts';

/** Mounts every /api/v3 route on the exchange's router. */
export function mountBinanceRoutes(router: Router, ctx: BinanceContext): void {
  mountBinanceMarketRoutes(router, ctx);
  mountBinanceTradeRoutes(router, ctx);
  mountBinanceAccountRoutes(router, ctx);
  mountBinanceOrderRoutes(router, ctx);
}
