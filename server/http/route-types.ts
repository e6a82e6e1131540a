/** What routes of the HTTP kit take and give (docs/architecture.md#http-kit). */
import type { HttpError } from './reply.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** What a handler sees: everything copied out of uWS synchronously, the body parsed. */
export class RouteRequest {
  /** the parsed JSON body of a route with a body (its bytes, a Buffer, with `body.raw`); undefined when empty (or without one) */
  body: unknown = undefined;
  /** the client's address, on a route that asked for it (`remoteAddress: true`); else '' */
  remoteAddress = '';
  private parsedQuery: URLSearchParams | undefined;

  constructor(
    readonly method: string,
    /** the path as requested, e.g. `/api/balance/abc` */
    readonly url: string,
    /** named path parameters of the route pattern (`:address` -> `params.address`), percent-decoded */
    readonly params: Record<string, string>,
    /** the query string as sent (percent-encoded, without `?`): what a signature covers */
    readonly rawQuery: string,
    /** request headers, lower-case names: all of them on a route with a body, else those the route asked for */
    readonly headers: Record<string, string>,
  ) {}

  /** the query string, parsed when first read */
  get query(): URLSearchParams {
    return (this.parsedQuery ??= new URLSearchParams(this.rawQuery));
  }
}

/** What the router calls: returns the 200 JSON body (a `RawJson` sent as it is, a JsonResponse, a TextResponse; undefined is 204), or throws. Routes are typed by their spec (route-spec.ts `RouteHandler`). */
export type Handler = (req: RouteRequest) => unknown;

/** Options of a route. */
export interface RouteOptions {
  /** the route reads a JSON body (every request header is then copied too) */
  body?: {
    /** limit in bytes [the router's] */
    maxBytes?: number;
    /** answer this unless the request has `Content-Type: application/json` and a non-empty body */
    requireJson?: (url: string) => HttpError;
    /** hand the handler the body's bytes (a Buffer) unparsed: a form body, read by the surface itself */
    raw?: boolean;
  };
  /** copy the client's address into `remoteAddress` (per-address limits) */
  remoteAddress?: boolean;
  /** request headers a route without a body reads (lower case) */
  headers?: readonly string[];
}

/** How a surface words what the kit refuses, and what a failure means (docs/architecture.md#http-kit). */
export interface ErrorPolicy {
  /** a failure that is no HttpError: the HttpError it means (an outage: 503), or undefined for a logged 500 */
  translate?(err: unknown): HttpError | undefined;
  /** the body of a 500 */
  internal(): Record<string, unknown>;
  notFound(method: string, url: string): Record<string, unknown>;
  notAllowed(method: string, url: string, allow: string): Record<string, unknown>;
  /** a body the parser cannot take: the surface's 400 */
  invalidBody(reason?: string): HttpError;
  /** the body of a 400 for a path parameter with a malformed escape; without it the parameter is kept as sent */
  badPath?(url: string): Record<string, unknown>;
}

/** A reply with a status other than 200, or extra headers; `N` is its status and `B` its body, typed for a route's declared ones. */
export class JsonResponse<N extends number = number, B = unknown> {
  constructor(
    readonly status: N,
    readonly body: B,
    readonly headers: ReadonlyArray<readonly [string, string]> = [],
  ) {}
}

/** A plain-text reply (the Prometheus exposition format). */
export class TextResponse {
  constructor(
    readonly body: string,
    readonly contentType: string,
    readonly status = 200,
  ) {}
}

/** Builds a JsonResponse: `return respond(201, {...})`. */
export const respond = <N extends number, B>(status: N, body: B, headers: ReadonlyArray<readonly [string, string]> = []): JsonResponse<N, B> =>
  new JsonResponse(status, body, headers);

/** A failure's cause as a log field: its message and the messages of its own causes. */
export function causeOf(cause: unknown): string | undefined {
  const parts: string[] = [];
  for (let c = cause, depth = 0; c !== undefined && c !== null && depth < 4; depth++) {
    parts.push(c instanceof Error ? `${c.name}: ${c.message}` : String(c));
    c = c instanceof Error ? c.cause : undefined;
  }
  return parts.length > 0 ? parts.join(' <- ') : undefined;
}
