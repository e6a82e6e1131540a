/**
 * The exchange's answers on the HTTP kit (docs/exchange-api.md#errors): runtime outcomes become a
 * status and a body, refusals `{error, message}` with the code's status, and the kit's own answers
 * (404, 405, a body it cannot take, an outage, a 500) are worded the same way.
 */
import * as v from 'valibot';
import { DependencyUnavailable } from '../../kernel/errors.ts';
import { HttpError, retryAfter } from '../http/reply.ts';
import { JsonResponse, type ErrorPolicy } from '../http/router.ts';
import type { ErrorCode, Outcome } from '../../runtime/exchange/outcome.ts';
import { describeIssues } from './wire.ts';

/** HTTP status of each code (docs/exchange-api.md#errors). */
export const STATUS_OF: Record<ErrorCode, number> = {
  VALIDATION_ERROR: 400,
  ACCOUNT_NOT_FOUND: 404,
  API_KEY_NOT_FOUND: 404,
  NAME_TAKEN: 409,
  INSUFFICIENT_FUNDS: 409,
  INSUFFICIENT_POSITION: 409,
  IDEMPOTENCY_KEY_REUSED: 422,
  PRICE_UNAVAILABLE: 503,
};

/** Turns a runtime outcome into an answer (its value, with `status`; nothing for 204), refusals into `{error, message}` with the code's status. */
export function answer<T>(out: Outcome<T>): T;
export function answer<T>(out: Outcome<T>, status: 201): JsonResponse<201, T>;
export function answer<T>(out: Outcome<T>, status: 204): undefined;
export function answer<T>(out: Outcome<T>, status: 200 | 201 | 204 = 200): T | JsonResponse<201, T> | undefined {
  if (!out.ok) throw new HttpError(STATUS_OF[out.code], { error: out.code, message: out.message });
  if (status === 204) return undefined;
  return status === 200 ? out.value : new JsonResponse(201, out.value);
}

/**
 * A dependency outage as the exchange answers it: 503 with Retry-After and an error code naming
 * the dependency (`REDIS_UNAVAILABLE`). A write that reaches Redis after the request's deadline
 * writes nothing (docs/exchange-api.md#errors); an order retried with its
 * Idempotency-Key never trades twice.
 */
export function outageError(err: DependencyUnavailable): HttpError {
  return new HttpError(
    503,
    { error: `${err.dependency.toUpperCase()}_UNAVAILABLE`, message: `${err.dependency} is unavailable; retry shortly (${err.message})` },
    { cause: err, headers: [retryAfter()] },
  );
}

/** Validates `input` with `schema`, or throws 400 VALIDATION_ERROR naming the field. */
export function validate<S extends v.GenericSchema>(schema: S, input: unknown, what = 'body'): v.InferOutput<S> {
  if (input === undefined && what === 'body') throw new HttpError(400, { error: 'VALIDATION_ERROR', message: 'a JSON body is required' });
  const r = v.safeParse(schema, input, { abortPipeEarly: true });
  if (!r.success) throw new HttpError(400, { error: 'VALIDATION_ERROR', message: describeIssues(r.issues) });
  return r.output;
}

/** The exchange's wording of the kit's answers (docs/exchange-api.md#errors). */
export const EXCHANGE_ERRORS: ErrorPolicy = {
  translate: (err) => (err instanceof DependencyUnavailable ? outageError(err) : undefined),
  internal: () => ({ error: 'INTERNAL_ERROR', message: 'the request could not be completed' }),
  notFound: (method, url) => ({ error: 'NOT_FOUND', message: `no route for ${method} ${url}` }),
  notAllowed: (method, url, allow) => ({ error: 'METHOD_NOT_ALLOWED', message: `${method} is not allowed on ${url} (allowed: ${allow})` }),
  invalidBody: (reason) => new HttpError(400, { error: 'VALIDATION_ERROR', message: reason ? `body: ${reason}` : 'body is not valid JSON' }),
};
