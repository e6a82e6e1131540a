/** `GET /api/price` and `GET /price` (docs/gateway-api.md#price): the price object, 503 `{error}` until the first tick. */
import { HttpError } from '../http/reply.ts';
import type { PriceService } from '../../runtime/gateway/prices/ingestion.ts';
import type { GatewayRouter } from './router.ts';

/** Registers the price route on `router`. */
export function registerPriceRoute(router: GatewayRouter, prices: Pick<PriceService, 'current'>): void {
  router.get('/price', () => {
    const price = prices.current();
    if (!price) throw new HttpError(503, { error: 'no price tick received yet' });
    return price;
  });
}
