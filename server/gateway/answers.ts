/**
 * Turning runtime outcomes into HTTP answers (spec section 7): gateway refusals become their
 * status with `{error, ...}`, an unreachable chain is 500, a program that says "not
 * initialised" is 409. Anything else stays an internal error (logged by the router).
 */
import { ChainUnavailable, ProgramRefusal } from '../../adapters/chain/port.ts';
import { isRefusal, MESSAGES, REFUSAL_STATUS, type GatewayRefusal } from '../../runtime/gateway/refusals.ts';
import { HttpError } from '../http.ts';

/** The HttpError of a refusal: its status and `{error}` (plus `openBetId` for 409 open bet). */
export function refusalError(r: GatewayRefusal): HttpError {
  return new HttpError(REFUSAL_STATUS[r.kind], r.openBetId === undefined ? { error: r.error } : { error: r.error, openBetId: r.openBetId });
}

/** Returns `value`, or throws the HttpError of a refusal. */
export function orRefuse<T>(value: T | GatewayRefusal): T {
  if (isRefusal(value)) throw refusalError(value);
  return value;
}

/** Runs a handler body, mapping chain failures to the spec's statuses. */
export async function answering<T>(body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (err) {
    if (err instanceof ChainUnavailable) throw new HttpError(500, { error: MESSAGES.chainDown }, { cause: err });
    if (err instanceof ProgramRefusal && err.errorName === 'NotInitialized') throw new HttpError(409, { error: MESSAGES.notInitialized }, { cause: err });
    throw err;
  }
}
