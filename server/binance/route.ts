/**
 * How a Binance-shaped route answers (docs/exchange-api.md#binance-spot-api), on the HTTP kit's
 * router: its parameters read from the query (and a form body), its request weight spent for the
 * client's address with `X-MBX-USED-WEIGHT-1M` on every answer (429 -1003 with Retry-After past
 * the limit), unknown parameters refused (-1104), a SIGNED route verified first, and every
 * failure answered `{code, msg}`: a dependency outage -1001, anything unforeseen a logged -1000.
 * A new order is counted for its account (`X-MBX-ORDER-COUNT-10S` / `-1D`, -1015 past a limit).
 *
 * @example
 *   binanceRoute(router, ctx, 'GET', '/api/v3/time', { weight: 1, params: [] }, () => ({ serverTime: Date.now() }));
 */
import { DependencyUnavailable } from '../../kernel/errors.ts';
import type { BinanceContext } from '../../runtime/binance/context.ts';
import { JsonResponse, type Method, type Router, type RouteRequest, type RouteSpec } from '../http/router.ts';
import { binanceOperations } from '../openapi/exchange-binance.ts';
import { binanceOrderOperations } from '../openapi/exchange-binance-orders.ts';
import { binanceTradeOperations } from '../openapi/exchange-binance-trades.ts';
import { binance, BinanceError } from './errors.ts';
import { BinanceParams } from './params.ts';
import { SIGNING_PARAMS, verifySigned, type Signer } from './signed.ts';

/** What a route declares. */
export interface BinanceRouteSpec {
  /** its request weight, fixed or from its parameters (a weight that cannot be worked out counts `fallbackWeight`) */
  weight: number | ((p: BinanceParams) => number);
  /** weight counted when the parameters do not parse [1] */
  fallbackWeight?: number;
  /** the parameter names it reads (SIGNED routes also take timestamp, recvWindow, signature) */
  params: readonly string[];
  /** SIGNED (TRADE, USER_DATA): a key and a signature are required */
  signed?: boolean;
  /** the parameters may come in a form body too (POST, DELETE) */
  body?: boolean;
  /** a new order: counted for the signer's account, `X-MBX-ORDER-COUNT-*` on the answer, -1015 past a limit */
  countsOrders?: boolean;
}

/** A route's work: its answer's body (200). */
export type BinanceHandler = (p: BinanceParams, signer: Signer | undefined, nowMs: number) => unknown;

const WEIGHT_HEADER = 'X-MBX-USED-WEIGHT-1M';

/** Registers a Binance-shaped route on `router`, from its spec in the OpenAPI document (or `operation`, a test's own). */
export function binanceRoute(
  router: Router,
  ctx: BinanceContext,
  method: Method,
  path: string,
  spec: BinanceRouteSpec,
  handler: BinanceHandler,
  operation: RouteSpec = binanceOperation(method, path),
): void {
  const allowed = spec.signed ? [...spec.params, ...SIGNING_PARAMS] : spec.params;
  const answer = async (req: RouteRequest): Promise<JsonResponse> => {
    const nowMs = ctx.exchange.now().getTime();
    let params: BinanceParams | undefined;
    let failure: unknown;
    try {
      params = new BinanceParams(req.rawQuery, req.body instanceof Buffer ? req.body.toString('latin1') : '');
    } catch (err) {
      failure = err;
    }
    let weight = typeof spec.weight === 'number' ? spec.weight : (spec.fallbackWeight ?? 1);
    if (params && typeof spec.weight === 'function') {
      try {
        weight = spec.weight(params);
      } catch (err) {
        failure = err;
      }
    }
    const use = ctx.weights.spend(req.remoteAddress, weight);
    const headers: [string, string][] = [[WEIGHT_HEADER, String(use.used)]];
    try {
      if (use.over) throw binance.tooMuchWeight(ctx.weights.limit, use.retryAfterSeconds);
      if (failure !== undefined || !params) throw failure;
      params.onlyThese(allowed);
      const signer = spec.signed ? await verifySigned(ctx, req.headers['x-mbx-apikey'], params, nowMs) : undefined;
      if (spec.countsOrders && signer) {
        const counted = ctx.orderCounts.count(signer.accountId);
        headers.push(...counted.headers);
        if (counted.over) throw binance.tooManyOrders(counted.over.limit, counted.over.intervalNum, counted.over.interval);
      }
      return new JsonResponse(200, await handler(params, signer, nowMs), headers);
    } catch (err) {
      const known = asBinanceError(err, ctx, req);
      return new JsonResponse(known.status, known.body(), [...headers, ...known.headers]);
    }
  };
  const options = spec.body ? { body: { raw: true }, remoteAddress: true } : { headers: ['x-mbx-apikey'], remoteAddress: true };
  router.add(operation, answer, options);
}

let operations: Map<string, RouteSpec> | undefined;
/** The spec of a Binance-shaped route (server/openapi/exchange-binance*.ts); a route without one is a mistake, refused at mount. */
function binanceOperation(method: Method, path: string): RouteSpec {
  operations ??= new Map([...binanceOperations(), ...binanceTradeOperations(), ...binanceOrderOperations()].map((op) => [`${op.method} ${op.path}`, op]));
  const op = operations.get(`${method.toLowerCase()} ${path}`);
  if (!op) throw new Error(`the Binance route ${method} ${path} has no spec in the OpenAPI document`);
  return op;
}

function asBinanceError(err: unknown, ctx: BinanceContext, req: RouteRequest): BinanceError {
  if (err instanceof BinanceError) return err;
  if (err instanceof DependencyUnavailable) {
    ctx.exchange.log.warn({ url: req.url, dependency: err.dependency, err: err.message }, 'answered 503 (-1001)');
    return binance.disconnected();
  }
  ctx.exchange.log.error({ err, method: req.method, url: req.url }, 'binance request failed');
  return binance.unknown();
}
