/**
 * The Binance Spot–shaped surface under /api/v3 on the exchange port (docs/exchange-api.md#binance-spot-api):
 * market data, the signed account read, and, through `mountBinanceStreams`, the market streams.
 * Order routes join here on the same `binanceRoute`.
 */
import type { BinanceContext } from '../../runtime/binance/context.ts';
import type { Router } from '../http/router.ts';
import { mountBinanceAccountRoutes } from './account-routes.ts';
import { mountBinanceMarketRoutes } from './market-routes.ts';

/** Mounts every /api/v3 route on the exchange's router. */
export function mountBinanceRoutes(router: Router, ctx: BinanceContext): void {
  mountBinanceMarketRoutes(router, ctx);
  mountBinanceAccountRoutes(router, ctx);
}
