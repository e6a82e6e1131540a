/** `GET /api/price` and `GET /price` (docs/gateway-api.md#price): the price object, 503 `{error}` until the first tick. */
import { HttpError, RawJson } from '../http/reply.ts';
import type { PriceService } from '../../runtime/gateway/prices/ingestion.ts';
import type { GatewayRouter } from './router.ts';
import { priceRoute } from '../openapi/gateway.ts';

/** Registers the price route on `router`. */
export function registerPriceRoute(router: GatewayRouter, prices: Pick<PriceService, 'current'>): void {
  // the body is made once per price (a new tick is a new object)
  let cached: { price: object; body: RawJson } | null = null;
  router.get(priceRoute, () => {
    const price = prices.current();
    if (!price) throw new HttpError(503, { error: 'no price tick received yet' });
    if (cached?.price !== price) cached = { price, body: new RawJson(JSON.stringify(price)) };
    return cached.body;
  });
}
