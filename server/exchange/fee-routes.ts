/**
 * The native API's fee routes (docs/exchange-api.md#fees), an extension of the spec: an account's
 * taker and maker fee rates, read and set.
 */
import { dec } from '../../machines/exchange/money.ts';
import type { ExchangeContext } from '../../runtime/exchange/context.ts';
import { readFees, setFees } from '../../runtime/exchange/fees.ts';
import type { Router } from '../http/router.ts';
import { SetFeesBody } from './fee-wire.ts';
import { answer, validate } from './handle.ts';

import { feesRoute, setFeesRoute } from '../openapi/exchange-binance.ts';
/** Mounts GET and PUT `/api/v1/accounts/{id}/fees`. */
export function mountFeeRoutes(router: Router, ctx: ExchangeContext): void {
  router.add(feesRoute, async ({ params }) => answer(await readFees(ctx, params.id ?? '')));
  router.add(
    setFeesRoute,
    async ({ params, body }) => {
      const b = validate(SetFeesBody, body);
      const change = {
        ...(b.feeRate === undefined ? {} : { feeRate: dec(b.feeRate) }),
        ...(b.makerFeeRate === undefined ? {} : { makerFeeRate: dec(b.makerFeeRate) }),
      };
      return answer(await setFees(ctx, params.id ?? '', change));
    },
    { body: {} },
  );
}
