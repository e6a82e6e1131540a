/**
 * The one router of every HTTP surface (docs/architecture.md#http-kit), over a uWS app: routes
 * with named parameters, HEAD answered as GET without a body, OPTIONS a CORS preflight on every
 * path, 404 for an unknown path and 405 with `Allow` for a known path with another method, body
 * limits and the one body parser, a per-surface error policy, and the requests in flight counted
 * for a draining stop.
 *
 * A handler that answers synchronously is answered before the uWS callback returns: no promise,
 * no abort handler, nothing copied that it did not ask for. That keeps a read route's cost near
 * a bare uWS route's.
 *
 * Every route is registered from its spec (route-spec.ts): the router keeps the specs, and the
 * surface's OpenAPI document is built from them, so no route of the router answers that the document
 * does not list. What a surface serves beside its router (the web pages, the Binance market streams)
 * is outside the document unless the surface adds it with `documented`.
 *
 * @example
 *   const router = createRouter(app, { log, errors: exchangeErrors });
 *   router.add(readAccountRoute, ({ params }) => readAccount(params.id));
 *   router.add(openAccountRoute, ({ body }) => respond(201, open(body)), { body: {} });
 *   await router.drained(5_000);
 */
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import type { Logger } from '../../kernel/log.ts';
import { DRAIN_OVERSIZE_BYTES, parseJson, readBody, tooLarge } from './body.ts';
import { InFlight } from './in-flight.ts';
import { HttpError, reply, replyNow, sendJson, sendPreflight, sendText, type Reply } from './reply.ts';
import { answersSomething, patternOf, type Responses, type RouteHandler, type RouteSpec } from './route-spec.ts';
import { causeOf, JsonResponse, RouteRequest, TextResponse, type ErrorPolicy, type Handler, type Method, type RouteOptions } from './route-types.ts';

export { JsonResponse, respond, RouteRequest, TextResponse } from './route-types.ts';
export type { ErrorPolicy, Method, RouteOptions } from './route-types.ts';
export { defineRoute, type RouteHandler, type RouteSpec } from './route-spec.ts';

/** Options of `createRouter`. */
export interface RouterOptions {
  log: Logger;
  errors: ErrorPolicy;
  /** body limit of routes with a body [16 KiB] */
  maxBodyBytes?: number;
  /** told of every answer: the route pattern (`unmatched` for a 404 path) and the status */
  answered?: (route: string, status: number) => void;
}

/** Where a surface registers its routes. */
export interface Router {
  /** registers the route of `spec` (its path templated as `/bets/{id}`) */
  add<R extends Responses>(spec: RouteSpec<R>, handler: RouteHandler<R>, options?: RouteOptions): void;
  /** a known path with no method of its own (a template, as in a spec): every method answers 405 */
  known(path: string): void;
  /** documents a route the router does not serve (a WebSocket upgrade, a path's 405): listed in `specs()` */
  documented(spec: RouteSpec): void;
  /** the specs of the routes registered, in order: what the surface's OpenAPI document lists */
  specs(): readonly RouteSpec[];
  /** Resolves when no request is in flight, or after `timeoutMs`. */
  drained(timeoutMs: number): Promise<void>;
  /** requests being answered now */
  inFlight(): number;
}

interface Route {
  pattern: string;
  handler: Handler;
  paramNames: string[];
  options: RouteOptions;
}

/** Methods served at one uWS pattern; an empty table means "known path, no method here" (405). */
interface MethodTable {
  routes: Map<string, Route>;
  /** the `Allow` header, kept in step with `routes` */
  allow: string;
}

/** uWS gives the method in lower case; routes are keyed in upper case. */
const UPPER: Record<string, string> = { get: 'GET', head: 'HEAD', post: 'POST', put: 'PUT', delete: 'DELETE', options: 'OPTIONS', patch: 'PATCH' };
const upper = (method: string): string => UPPER[method] ?? method.toUpperCase();

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';

/** Creates the router on `app` and registers the 404/preflight fallback for every other path. */
export function createRouter(app: TemplatedApp, options: RouterOptions): Router {
  const { log, errors } = options;
  const defaultLimit = options.maxBodyBytes ?? 16 * 1024;
  const tables = new Map<string, MethodTable>();
  const answered = options.answered ?? (() => undefined);
  const inFlight = new InFlight();

  const tableFor = (pattern: string): MethodTable => {
    let table = tables.get(pattern);
    if (!table) {
      const created: MethodTable = { routes: new Map(), allow: '' };
      tables.set(pattern, created);
      app.any(pattern, (res, req) => dispatch(res, req, created));
      table = created;
    }
    return table;
  };

  /** Sends a handler's result; returns the status sent. */
  const send = (r: Reply, result: unknown): number => {
    if (result instanceof TextResponse) {
      sendText(r, result.status, result.body, result.contentType);
      return result.status;
    }
    if (result instanceof JsonResponse) {
      sendJson(r, result.status, result.body, result.headers);
      return result.status;
    }
    const status = result === undefined ? 204 : 200;
    sendJson(r, status, result);
    return status;
  };

  /** Answers a failure through the surface's policy; returns the status sent. */
  const sendError = (r: Reply, request: RouteRequest, failure: unknown): number => {
    const err = failure instanceof HttpError ? failure : errors.translate?.(failure);
    if (err) {
      // a 5xx is ours or a dependency's: the operator sees what caused it
      if (err.status >= 500 && !err.quiet)
        log.warn({ status: err.status, method: request.method, url: request.url, error: err.body.error, cause: causeOf(err.cause) }, `answered ${err.status}`);
      sendJson(r, err.status, err.body, err.headers);
      return err.status;
    }
    log.error({ err: failure, method: request.method, url: request.url }, 'request handler failed');
    sendJson(r, 500, errors.internal());
    return 500;
  };

  const dispatch = (res: HttpResponse, req: HttpRequest, table: MethodTable): void => {
    const method = upper(req.getMethod());
    if (method === 'OPTIONS') return sendPreflight(res);
    const head = method === 'HEAD';
    const route = table.routes.get(head ? 'GET' : method);
    const url = req.getUrl();
    if (!route) {
      answered(patternOfTable(table), 405);
      return sendJson(replyNow(res, head), 405, errors.notAllowed(method, url, table.allow), table.allow ? [['Allow', table.allow]] : []);
    }
    // uWS request data is only valid synchronously: copy what the route needs now
    const params: Record<string, string> = {};
    for (let i = 0; i < route.paramNames.length; i++) {
      const raw = req.getParameter(i) ?? '';
      const value = raw.includes('%') ? decodeParam(raw) : raw;
      if (value === null && errors.badPath) {
        answered(route.pattern, 400);
        return sendJson(replyNow(res, head), 400, errors.badPath(url));
      }
      params[route.paramNames[i] as string] = value ?? raw;
    }
    const headers: Record<string, string> = {};
    if (route.options.body) req.forEach((k, v) => (headers[k] = v));
    else for (const name of route.options.headers ?? []) headers[name] = req.getHeader(name);
    const request = new RouteRequest(method, url, params, req.getQuery() ?? '', headers);
    if (route.options.remoteAddress) request.remoteAddress = Buffer.from(res.getRemoteAddressAsText()).toString();

    if (!route.options.body) {
      let result: unknown;
      try {
        result = route.handler(request);
      } catch (err) {
        answered(route.pattern, sendError(replyNow(res, head), request, err));
        return;
      }
      if (!isThenable(result)) {
        answered(route.pattern, send(replyNow(res, head), result));
        return;
      }
      finishLater(reply(res, method), request, route, Promise.resolve(result));
      return;
    }
    const r = reply(res, method); // onAborted before anything asynchronous
    const body = readRequestBody(r, request, route.options.body);
    finishLater(
      r,
      request,
      route,
      body.then((parsed) => {
        request.body = parsed;
        return route.handler(request);
      }),
    );
  };

  const finishLater = (r: Reply, request: RouteRequest, route: Route, result: Promise<unknown>): void => {
    inFlight.enter();
    result
      .then(
        (value) => answered(route.pattern, send(r, value)),
        (err: unknown) => answered(route.pattern, sendError(r, request, err)),
      )
      .then(
        () => inFlight.leave(),
        (err: unknown) => {
          inFlight.leave();
          log.error({ err, method: request.method, url: request.url }, 'answering a request failed');
        },
      );
  };

  const readRequestBody = async (r: Reply, request: RouteRequest, body: NonNullable<RouteOptions['body']>): Promise<unknown> => {
    const limit = body.maxBytes ?? defaultLimit;
    // a declared body too large even to drain is refused before any of it is read; readBody refuses
    // the others past the limit once they have arrived (a 413 sent mid-upload is often lost to a reset)
    const raw = Number(request.headers['content-length'] ?? 0) > Math.max(limit, DRAIN_OVERSIZE_BYTES) ? Promise.reject(tooLarge(limit)) : readBody(r, limit);
    const bytes = await raw;
    if (body.raw) return bytes;
    if (body.requireJson && (!isJsonContentType(request.headers['content-type']) || bytes.length === 0)) throw body.requireJson(request.url);
    return parseJson(bytes, errors.invalidBody);
  };

  // unknown paths: 404; a preflight is answered everywhere
  app.any('/*', (res, req) => {
    const method = upper(req.getMethod());
    if (method === 'OPTIONS') return sendPreflight(res);
    answered('unmatched', 404);
    sendJson(replyNow(res, method === 'HEAD'), 404, errors.notFound(method, req.getUrl()));
  });

  const tablePattern = new Map<MethodTable, string>();
  const patternOfTable = (table: MethodTable): string => tablePattern.get(table) ?? 'unmatched';

  const route = (method: Method, pattern: string, handler: Handler, routeOptions: RouteOptions = {}): void => {
    const table = tableFor(pattern);
    tablePattern.set(table, pattern);
    if (table.routes.has(method)) throw new Error(`route ${method} ${pattern} registered twice`);
    table.routes.set(method, { pattern, handler, paramNames: paramNamesOf(pattern), options: routeOptions });
    table.allow = [...table.routes.keys(), ...(table.routes.has('GET') ? ['HEAD'] : [])].join(', ');
  };

  const specs: RouteSpec[] = [];
  return {
    add: (spec, handler, routeOptions) => {
      // a route the document would list with no answer is a definition missing its responses
      if (!answersSomething(spec)) throw new Error(`route ${spec.method.toUpperCase()} ${spec.path} declares no 2xx or 101 response`);
      route(spec.method.toUpperCase() as Method, patternOf(spec.path), handler, routeOptions);
      specs.push(spec);
    },
    known: (path) => {
      const pattern = patternOf(path);
      tablePattern.set(tableFor(pattern), pattern);
    },
    documented: (spec) => void specs.push(spec),
    specs: () => specs,
    drained: (timeoutMs) => inFlight.drained(timeoutMs),
    inFlight: () => inFlight.count,
  };
}

/** A percent-decoded path parameter; null for a malformed escape. */
function decodeParam(raw: string): string | null {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

const isJsonContentType = (value: string | undefined): boolean => value !== undefined && /^application\/json\s*(;|$)/i.test(value.trim());

function paramNamesOf(pattern: string): string[] {
  if (!pattern.startsWith('/')) throw new Error(`route path must start with /: ${pattern}`);
  return pattern
    .split('/')
    .filter((s) => s.startsWith(':'))
    .map((s) => s.slice(1));
}
