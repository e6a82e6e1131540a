/**
 * The gateway's path rules (spec sections 1.7 and 7) as a small router over uWS that the
 * assembled gateway registers handlers into:
 * - the API base is `/api`; GET routes also answer without it;
 * - POST routes without `/api` answer 405; a route may demand `Content-Type: application/json`
 *   and a body (Profile A `POST /wallet`), answering 405 otherwise;
 * - a known path with another method answers 405 (with `Allow`), an unknown path 404 `{error}`
 *   (so `POST /api/close` is 404), OPTIONS is a CORS preflight on every path, HEAD is answered
 *   like GET without a body;
 * - bodies are size-limited (413 `{error}`), non-JSON bodies are 400 `invalid JSON body`;
 * - HttpError becomes its status/body/headers, a dependency outage 503 with Retry-After,
 *   anything else 500 `{error}` logged, never a crash.
 * Every reply carries `Access-Control-Allow-Origin: *` (sendJson/sendPreflight).
 *
 * @example
 *   const router = createRouter(app, { log });
 *   router.get('/balance/:address', ({ params }) => balances.of(params.address));
 *   router.post('/bet', ({ body }) => placeBet(parseBetBodyA(body)));
 */
import { DependencyUnavailable } from '../../kernel/errors.ts';
import type { Logger } from '../../kernel/log.ts';
import {
  HttpError,
  parseJson,
  readBody,
  reply,
  sendJson,
  sendPreflight,
  sendText,
  type HttpRequest,
  type HttpResponse,
  type Reply,
  type TemplatedApp,
} from '../http.ts';
import { outageError } from './answers.ts';
import { invalidJsonBody } from './wire.ts';

/** The API base (spec: "The API base is `{base_url}/api`"). */
export const API_BASE = '/api';
/** Default body limit of POST routes. */
export const DEFAULT_MAX_BODY_BYTES = 16 * 1024;

/** What a handler sees: everything copied out of uWS synchronously, body parsed. */
export interface GatewayRequest {
  method: string;
  /** the path as requested, e.g. `/api/balance/abc` */
  url: string;
  /** named path parameters of the route pattern (`:address` -> `params.address`) */
  params: Record<string, string>;
  query: URLSearchParams;
  /** request headers, lower-case names */
  headers: Record<string, string>;
  /** parsed JSON body of a POST; undefined when empty (or for GET) */
  body: unknown;
}

/** A reply with a status other than 200, or extra headers. */
export class JsonResponse {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: ReadonlyArray<readonly [string, string]> = [],
  ) {}
}

/** A plain-text reply (the Prometheus exposition format of `GET /metrics`). */
export class TextResponse {
  constructor(
    readonly body: string,
    readonly contentType: string,
    readonly status = 200,
  ) {}
}

/** Builds a JsonResponse: `return respond(201, {...})`. */
export const respond = (status: number, body: unknown, headers: ReadonlyArray<readonly [string, string]> = []): JsonResponse =>
  new JsonResponse(status, body, headers);

/** A route handler: returns the 200 JSON body (or a JsonResponse), throws HttpError for refusals. */
export type RouteHandler = (req: GatewayRequest) => unknown;

/** Options of a POST route. */
export interface PostOptions {
  /** Answer 405 unless the request has `Content-Type: application/json` and a non-empty body (spec 1.7, `POST /wallet`). */
  requireJsonBody?: boolean;
  /** Body limit in bytes (default: the router's). */
  maxBodyBytes?: number;
}

/** Where handlers are registered; paths are given without the `/api` base. */
export interface GatewayRouter {
  /** GET `/api<path>` and `<path>`. */
  get(path: string, handler: RouteHandler): void;
  /** POST `/api<path>`; `<path>` answers 405. */
  post(path: string, handler: RouteHandler, options?: PostOptions): void;
}

/** Options of `createRouter`. */
export interface RouterOptions {
  log: Logger;
  maxBodyBytes?: number;
  /** told of every answer: the route pattern (`/api/balance/:address`; `unmatched` for a 404 path) and the status */
  answered?: (route: string, status: number) => void;
}

interface Route {
  /** the uWS pattern it was registered under, for metrics */
  pattern: string;
  handler: RouteHandler;
  paramNames: string[];
  post?: PostOptions;
}

/** Methods served at one uWS pattern; an empty map means "known path, no method here" (405). */
type MethodTable = Map<string, Route>;

/** Creates the router on `app` and registers the 404/preflight fallback for every other path. */
export function createRouter(app: TemplatedApp, options: RouterOptions): GatewayRouter {
  const log = options.log;
  const defaultLimit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const patterns = new Map<string, MethodTable>();
  const answered = options.answered ?? (() => undefined);

  const tableFor = (pattern: string): MethodTable => {
    let table = patterns.get(pattern);
    if (!table) {
      const created: MethodTable = new Map();
      patterns.set(pattern, created);
      app.any(pattern, (res, req) => dispatch(res, req, pattern, created));
      table = created;
    }
    return table;
  };

  const dispatch = (res: HttpResponse, req: HttpRequest, pattern: string, table: MethodTable): void => {
    const method = req.getMethod().toUpperCase();
    const r = reply(res, method); // onAborted before anything async
    if (method === 'OPTIONS') return sendPreflight(res);
    const route = table.get(method === 'HEAD' ? 'GET' : method);
    if (!route) {
      const allow = [...table.keys(), ...(table.has('GET') ? ['HEAD'] : [])].join(', ');
      answered(pattern, 405);
      return sendJson(r, 405, { error: `method ${method} not allowed on ${req.getUrl()}` }, allow ? [['Allow', allow]] : []);
    }
    // uWS request data is only valid synchronously: copy it all now.
    const headers: Record<string, string> = {};
    req.forEach((k, v) => {
      headers[k] = v;
    });
    const params: Record<string, string> = {};
    try {
      route.paramNames.forEach((name, i) => {
        params[name] = decodeURIComponent(req.getParameter(i) ?? '');
      });
    } catch {
      answered(route.pattern, 400);
      return sendJson(r, 400, { error: `malformed path ${req.getUrl()}` });
    }
    const request: GatewayRequest = { method, url: req.getUrl(), params, query: new URLSearchParams(req.getQuery() ?? ''), headers, body: undefined };
    const body = route.post ? readRequestBody(r, request, route.post) : Promise.resolve(undefined);
    void body
      .then(async (parsed) => {
        request.body = parsed;
        const result = await route.handler(request);
        if (result instanceof TextResponse) {
          answered(route.pattern, result.status);
          return sendText(r, result.status, result.body, result.contentType);
        }
        const status = result instanceof JsonResponse ? result.status : result === undefined ? 204 : 200;
        answered(route.pattern, status);
        if (result instanceof JsonResponse) sendJson(r, result.status, result.body, result.headers);
        else sendJson(r, status, result);
      })
      .catch((err: unknown) => answered(route.pattern, sendError(r, request, err)));
  };

  const readRequestBody = async (r: Reply, request: GatewayRequest, post: PostOptions): Promise<unknown> => {
    const limit = post.maxBodyBytes ?? defaultLimit;
    // Refuse a declared oversize body before reading any of it; readBody also stops at the limit.
    if (Number(request.headers['content-length'] ?? 0) > limit)
      throw new HttpError(413, { error: 'PAYLOAD_TOO_LARGE', message: `body larger than ${limit} bytes` });
    const raw = await readBody(r, limit); // attaches onData synchronously (called before any await)
    if (post.requireJsonBody && (!isJsonContentType(request.headers['content-type']) || raw.length === 0)) {
      throw new HttpError(405, { error: `POST ${request.url} needs a Content-Type: application/json header and a JSON body ({})` });
    }
    return parseJson(raw, invalidJsonBody);
  };

  /** Answers a failure; returns the status sent. */
  const sendError = (r: Reply, request: GatewayRequest, failure: unknown): number => {
    let err = failure;
    if (err instanceof DependencyUnavailable) err = outageError(err);
    if (err instanceof HttpError) {
      // a 5xx is ours or a dependency's: the operator sees what caused it
      if (err.status >= 500)
        log.warn({ status: err.status, method: request.method, url: request.url, error: err.body.error, cause: causeOf(err.cause) }, `answered ${err.status}`);
      sendJson(r, err.status, err.body, err.headers);
      return err.status;
    }
    log.error({ err, method: request.method, url: request.url }, 'request handler failed');
    sendJson(r, 500, { error: 'internal error' });
    return 500;
  };

  // Unknown paths: 404 JSON (spec 7: `POST /close` does not exist); preflight answered everywhere.
  app.any('/*', (res, req) => {
    const method = req.getMethod().toUpperCase();
    const r = reply(res, method);
    if (method === 'OPTIONS') return sendPreflight(res);
    answered('unmatched', 404);
    sendJson(r, 404, { error: `no route ${method} ${req.getUrl()}` });
  });

  const add = (method: string, pattern: string, route: Route): void => {
    const table = tableFor(pattern);
    if (table.has(method)) throw new Error(`route ${method} ${pattern} registered twice`);
    table.set(method, route);
  };

  return {
    get(path, handler) {
      const paramNames = paramNamesOf(path);
      add('GET', `${API_BASE}${path}`, { pattern: `${API_BASE}${path}`, handler, paramNames });
      add('GET', path, { pattern: path, handler, paramNames });
    },
    post(path, handler, postOptions = {}) {
      add('POST', `${API_BASE}${path}`, { pattern: `${API_BASE}${path}`, handler, paramNames: paramNamesOf(path), post: postOptions });
      tableFor(path); // known without /api, no POST there: 405 (spec 1.7)
    },
  };
}

const isJsonContentType = (value: string | undefined): boolean => value !== undefined && /^application\/json\s*(;|$)/i.test(value.trim());

function paramNamesOf(path: string): string[] {
  if (!path.startsWith('/')) throw new Error(`route path must start with /: ${path}`);
  return path
    .split('/')
    .filter((s) => s.startsWith(':'))
    .map((s) => s.slice(1));
}

/** A failure's cause as a log field: its message and the messages of its own causes. */
function causeOf(cause: unknown): string | undefined {
  const parts: string[] = [];
  for (let c = cause, depth = 0; c !== undefined && c !== null && depth < 4; depth++) {
    parts.push(c instanceof Error ? `${c.name}: ${c.message}` : String(c));
    c = c instanceof Error ? c.cause : undefined;
  }
  return parts.length > 0 ? parts.join(' <- ') : undefined;
}
