/**
 * Glue between uWS and the exchange runtime: reads params, query, headers and body
 * synchronously, runs the handler, and answers JSON or `{error, message}` (spec §7).
 */
import * as v from 'valibot';
import { DependencyUnavailable } from '../../kernel/errors.ts';
import { HttpError, parseJson, readBody, reply, retryAfter, sendJson, type HttpRequest, type HttpResponse } from '../http.ts';
import type { Logger } from '../../kernel/log.ts';
import type { ErrorCode, Outcome } from '../../runtime/exchange/outcome.ts';
import { describeIssues } from './wire.ts';

/** What a handler sees of a request. */
export interface Call {
  params: string[];
  query: URLSearchParams;
  headers: Record<string, string>;
  body: unknown;
}

/** A handler's answer: a status and a JSON body (none for 204). */
export interface Answer {
  status: number;
  body?: unknown;
}

/** HTTP status of each code (docs/exchange-api.md#errors). */
export const STATUS_OF: Record<ErrorCode, number> = {
  VALIDATION_ERROR: 400,
  ACCOUNT_NOT_FOUND: 404,
  NAME_TAKEN: 409,
  INSUFFICIENT_FUNDS: 409,
  INSUFFICIENT_POSITION: 409,
  IDEMPOTENCY_KEY_REUSED: 422,
  PRICE_UNAVAILABLE: 503,
};

/** Turns a runtime outcome into an answer, refusals into `{error, message}` with the code's status. */
export function answer<T>(out: Outcome<T>, status = 200, view: (value: T) => unknown = (x) => x): Answer {
  if (out.ok) return { status, body: status === 204 ? undefined : view(out.value) };
  throw new HttpError(STATUS_OF[out.code], { error: out.code, message: out.message });
}

/**
 * A dependency outage as the exchange answers it: 503 with Retry-After and an error code naming
 * the dependency (`REDIS_UNAVAILABLE`). A write that reaches Redis after the request's deadline
 * writes nothing (design: "never commits after answering"); an order retried with its
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

/** Counts requests being answered, so a stop can let them finish before the store closes. */
export class InFlight {
  count = 0;
  private idle: (() => void)[] = [];
  enter(): void {
    this.count++;
  }
  leave(): void {
    if (--this.count === 0) for (const f of this.idle.splice(0)) f();
  }
  /** Resolves when no request is in flight, or after `timeoutMs`. */
  drained(timeoutMs: number): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.idle.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

/** A path parameter, percent-decoded when well formed (a malformed escape stays as sent). */
function decodeParam(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** Builds a uWS handler. `paramCount` path parameters are read; the body is read when `withBody`. */
export function handler(
  log: Logger,
  opts: { paramCount: number; withBody: boolean; headers?: readonly string[]; inFlight?: InFlight },
  run: (call: Call) => Promise<Answer>,
): (res: HttpResponse, req: HttpRequest) => void {
  return (res, req) => {
    const r = reply(res, req.getCaseSensitiveMethod());
    const params = Array.from({ length: opts.paramCount }, (_, i) => decodeParam(req.getParameter(i) ?? ''));
    const query = new URLSearchParams(req.getQuery() ?? '');
    const headers: Record<string, string> = {};
    for (const h of opts.headers ?? []) headers[h] = req.getHeader(h);
    const method = req.getCaseSensitiveMethod();
    const url = req.getUrl();
    const body = opts.withBody ? readBody(r) : Promise.resolve(Buffer.alloc(0));
    opts.inFlight?.enter();
    (async () => {
      try {
        const bytes = await body;
        const json = opts.withBody
          ? parseJson(bytes, (reason) => new HttpError(400, { error: 'VALIDATION_ERROR', message: reason ? `body: ${reason}` : 'body is not valid JSON' }))
          : undefined;
        const out = await run({ params, query, headers, body: json });
        sendJson(r, out.status, out.body);
      } catch (failure) {
        const err = failure instanceof DependencyUnavailable ? outageError(failure) : failure;
        if (err instanceof HttpError) {
          sendJson(r, err.status, err.body, err.headers);
          return;
        }
        log.error({ err, method, url }, 'request failed');
        sendJson(r, 500, { error: 'INTERNAL_ERROR', message: 'the request could not be completed' });
      } finally {
        opts.inFlight?.leave();
      }
    })().catch((err: unknown) => log.error({ err, method, url }, 'answering a request failed'));
  };
}
