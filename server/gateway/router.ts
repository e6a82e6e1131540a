/**
 * The gateway's path rules (docs/gateway-api.md#path-rules) on the HTTP kit's router:
 * - the API base is `/api`; GET routes also answer without it;
 * - POST routes without `/api` answer 405; a route may demand `Content-Type: application/json`
 *   and a body (Profile A `POST /wallet`), answering 405 otherwise;
 * - errors are `{error}` (docs/gateway-api.md#errors): a known path with another method is 405
 *   (with `Allow`), an unknown path 404 (so `POST /api/close` is 404), a body the parser cannot
 *   take 400 `invalid JSON body`, a dependency outage 503 with Retry-After, anything else a
 *   logged 500 `{error}`, never a crash.
 *
 * Routes are registered from their specs (server/openapi/gateway.ts), and the router lists the
 * operations it serves, from which the gateway's OpenAPI document is built.
 *
 * @example
 *   const router = createGatewayRouter(app, { log });
 *   router.get(balanceRoute, ({ params }) => balances.of(params.address));
 *   router.post(betRouteA, ({ body }) => placeBet(parseBetBodyA(body)));
 */
import type { TemplatedApp } from 'uWebSockets.js';
import { DependencyUnavailable } from '../../kernel/errors.ts';
import type { Logger } from '../../kernel/log.ts';
import { HttpError } from '../http/reply.ts';
import { createRouter, type ErrorPolicy } from '../http/router.ts';
import type { Responses, RouteHandler, RouteSpec } from '../http/route-spec.ts';
import { BARE_POST_ERRORS, POST_ERRORS } from '../openapi/gateway.ts';
import { outageError } from './answers.ts';
import { invalidJsonBody } from './wire.ts';

export { respond, TextResponse } from '../http/router.ts';

/** The API base (docs/gateway-api.md#path-rules). */
export const API_BASE = '/api';
/** Default body limit of POST routes. */
export const DEFAULT_MAX_BODY_BYTES = 16 * 1024;

/** Options of a POST route. */
export interface PostOptions {
  /** Answer 405 unless the request has `Content-Type: application/json` and a non-empty body (docs/gateway-api.md#path-rules, `POST /wallet`). */
  requireJsonBody?: boolean;
  /** Body limit in bytes (default: the router's). */
  maxBodyBytes?: number;
}

/** Where handlers are registered, from specs whose paths have no `/api` base. */
export interface GatewayRouter {
  /** GET `/api<path>` and `<path>`; `headers` names the request headers the handler reads. */
  get<R extends Responses>(spec: RouteSpec<R>, handler: RouteHandler<R>, headers?: readonly string[]): void;
  /** POST `/api<path>`; `<path>` answers 405. */
  post<R extends Responses>(spec: RouteSpec<R>, handler: RouteHandler<R>, options?: PostOptions): void;
  /** documents a GET route served outside the router (the WebSocket upgrade), under `/api` and without it */
  served(spec: RouteSpec): void;
  /** every operation registered or documented: what the OpenAPI document lists */
  operations(): readonly RouteSpec[];
  /** Resolves when no request is in flight, or after `timeoutMs`. */
  drained(timeoutMs: number): Promise<void>;
}

/** Options of `createGatewayRouter`. */
export interface GatewayRouterOptions {
  log: Logger;
  maxBodyBytes?: number;
  /** told of every answer: the route pattern (`/api/balance/:address`; `unmatched` for a 404 path) and the status */
  answered?: (route: string, status: number) => void;
}

/** The gateway's wording of the kit's answers (docs/gateway-api.md#errors). */
export const GATEWAY_ERRORS: ErrorPolicy = {
  translate: (err) => (err instanceof DependencyUnavailable ? outageError(err) : undefined),
  internal: () => ({ error: 'internal error' }),
  notFound: (method, url) => ({ error: `no route ${method} ${url}` }),
  notAllowed: (method, url) => ({ error: `method ${method} not allowed on ${url}` }),
  invalidBody: invalidJsonBody,
  badPath: (url) => ({ error: `malformed path ${url}` }),
};

/** Creates the gateway's router on `app` (with the kit's 404/preflight fallback for every other path). */
export function createGatewayRouter(app: TemplatedApp, options: GatewayRouterOptions): GatewayRouter {
  const kit = createRouter(app, {
    log: options.log,
    errors: GATEWAY_ERRORS,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    ...(options.answered ? { answered: options.answered } : {}),
  });
  const bare = (spec: RouteSpec): RouteSpec => ({ ...spec, summary: `${spec.summary} (without the /api prefix)` });
  return {
    get(spec, handler, headers) {
      if (spec.method !== 'get') throw new Error(`router.get takes a GET spec, not ${spec.method.toUpperCase()} ${spec.path}`);
      const routeOptions = headers ? { headers } : {};
      kit.add({ ...spec, path: `${API_BASE}${spec.path}` }, handler, routeOptions);
      kit.add(bare(spec) as typeof spec, handler, routeOptions);
    },
    post(spec, handler, post = {}) {
      if (spec.method !== 'post') throw new Error(`router.post takes a POST spec, not ${spec.method.toUpperCase()} ${spec.path}`);
      const requireJson = (url: string) => new HttpError(405, { error: `POST ${url} needs a Content-Type: application/json header and a JSON body ({})` });
      kit.add({ ...spec, path: `${API_BASE}${spec.path}`, responses: { ...POST_ERRORS, ...spec.responses } }, handler, {
        body: { ...(post.maxBodyBytes ? { maxBytes: post.maxBodyBytes } : {}), ...(post.requireJsonBody ? { requireJson } : {}) },
      });
      // known without /api, no POST there: 405
      kit.known(spec.path);
      kit.documented({
        method: 'post',
        path: spec.path,
        summary: `${spec.summary}: needs the /api prefix`,
        ...(spec.tags ? { tags: spec.tags } : {}),
        responses: BARE_POST_ERRORS,
      });
    },
    served(spec) {
      kit.documented({ ...spec, path: `${API_BASE}${spec.path}` });
      kit.documented(bare(spec));
    },
    operations: () => kit.specs(),
    drained: (timeoutMs) => kit.drained(timeoutMs),
  };
}
