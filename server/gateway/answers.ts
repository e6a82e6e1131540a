/**
 * Turning runtime outcomes into HTTP answers (docs/gateway-api.md#errors): gateway refusals become their
 * status with `{error, ...}`, a program that says "not initialised" is 409, and a dependency that
 * is down is 503 with Retry-After naming it — except where the spec fixes the status: POST /bet
 * answers 500 when the chain node is unreachable. Anything else stays an internal error (logged
 * by the router).
 */
import { DependencyUnavailable } from '../../kernel/errors.ts';
import { ChainRejected, ChainUnavailable, ProgramRefusal } from '../../adapters/chain/port.ts';
import { MESSAGES, type GatewayRefusal, type RefusalCode } from '../../runtime/gateway/refusals.ts';
import { HttpError, retryAfter } from '../http/reply.ts';
import { isRefusal } from '../../kernel/refusal.ts';

/** The status of each refusal (docs/gateway-api.md#errors); an unreachable chain's is the route's. */
const REFUSAL_STATUS: Record<RefusalCode, number> = {
  invalid_request: 400,
  not_approved: 400,
  forbidden: 403,
  open_bet: 409,
  not_initialized: 409,
  vault_cannot_cover: 409,
  chain_unavailable: 503,
  outcome_unknown: 500,
  busy: 503,
  no_price: 503,
};

/** Status of "the chain is unreachable" on a route: 500 on POST /bet (docs/gateway-api.md#errors), 503 elsewhere. */
export type ChainDownStatus = 500 | 503;

/** The HttpError of a refusal: its status and `{error}` (plus `openBetId` for 409 open bet). */
export function refusalError(r: GatewayRefusal, chainDown: ChainDownStatus = 503): HttpError {
  if (r.code === 'chain_unavailable') return new HttpError(chainDown, { error: r.message }, { cause: r.cause, headers: [retryAfter()] });
  // the bet may still land: the client learns which transaction to look for (docs/gateway-api.md#errors)
  if (r.code === 'outcome_unknown') return new HttpError(500, { error: r.message, tx: r.tx, pending: true }, { cause: r.cause, headers: [retryAfter()] });
  // nothing was sent: the client may retry once Retry-After has passed (docs/gateway-api.md#errors)
  if (r.code === 'busy') return new HttpError(503, { error: r.message }, { cause: r.cause, headers: [retryAfter()], quiet: r.cause === undefined });
  return new HttpError(REFUSAL_STATUS[r.code], r.openBetId === undefined ? { error: r.message } : { error: r.message, openBetId: r.openBetId });
}

/** Returns `value`, or throws the HttpError of a refusal. */
export function orRefuse<T>(value: T | GatewayRefusal, chainDown: ChainDownStatus = 503): T {
  if (isRefusal(value)) throw refusalError(value, chainDown);
  return value;
}

/** The 503 (or the spec's status) of a dependency outage, with Retry-After and an error naming it. */
export function outageError(err: DependencyUnavailable, chainDown: ChainDownStatus = 503): HttpError {
  if (err instanceof ChainUnavailable) return new HttpError(chainDown, { error: MESSAGES.chainDown }, { cause: err, headers: [retryAfter()] });
  return new HttpError(503, { error: `${err.dependency} is unavailable; retry shortly` }, { cause: err, headers: [retryAfter()] });
}

/** Runs a handler body, mapping chain and store failures to the spec's statuses. */
export async function answering<T>(body: () => Promise<T>, chainDown: ChainDownStatus = 503): Promise<T> {
  try {
    return await body();
  } catch (err) {
    if (err instanceof DependencyUnavailable) throw outageError(err, chainDown);
    if (err instanceof ProgramRefusal && err.errorName === 'NotInitialized') throw new HttpError(409, { error: MESSAGES.notInitialized }, { cause: err });
    // the chain is up and refused our transaction for its own reasons: not "unreachable", not the client's fault
    if (err instanceof ChainRejected) throw new HttpError(502, { error: err.message }, { cause: err });
    throw err;
  }
}
