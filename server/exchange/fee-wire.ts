/**
 * Wire schemas of the native API's fee routes (docs/exchange-api.md#fees), declared once for the
 * server, the OpenAPI document and the tests.
 */
import * as v from 'valibot';
import { dec } from '../../machines/exchange/money.ts';
import { DecimalString } from './wire.ts';

const rate = v.pipe(
  DecimalString,
  v.check((s) => {
    try {
      return dec(s).gte(0) && dec(s).lt(1);
    } catch {
      return false;
    }
  }, 'must be >= 0 and < 1'),
);

/** PUT /api/v1/accounts/{id}/fees: either rate or both. */
export const SetFeesBody = v.pipe(
  v.strictObject({ feeRate: v.optional(rate), makerFeeRate: v.optional(rate) }),
  v.check((b) => b.feeRate !== undefined || b.makerFeeRate !== undefined, 'give feeRate, makerFeeRate or both'),
);

const Rate = v.pipe(v.string(), v.regex(/^\d+\.\d{10}$/));
/** An account's taker (`feeRate`) and maker rates. */
export const FeesView = v.strictObject({ accountId: v.string(), feeRate: Rate, makerFeeRate: Rate });
