/**
 * The exchange REST API under /api/v1 (docs/exchange-api.md), on the HTTP kit's router. Routes
 * only validate and translate; the runtime does the work.
 */
import { type BookSnapshot } from '../../adapters/feed/port.ts';
import {
  deleteAccount,
  depositCash,
  listAccounts,
  openAccount,
  readAccount,
  readEquity,
  readOrders,
  readPnl,
  readPositions,
  setCash,
} from '../../runtime/exchange/accounts.ts';
import type { ExchangeContext } from '../../runtime/exchange/context.ts';
import { dec } from '../../machines/exchange/money.ts';
import { placeOrder } from '../../runtime/exchange/orders.ts';
import { priceView } from '../../runtime/exchange/views.ts';
import type { ExchangeStore } from '../../adapters/store/exchange/port.ts';
import type { Registry } from 'prom-client';
import { DependencyUnavailable } from '../../kernel/errors.ts';
import type { ExchangeMetrics } from '../../runtime/exchange/metrics.ts';
import { PROMETHEUS_CONTENT_TYPE } from '../../runtime/metrics.ts';
import type { TemplatedApp } from 'uWebSockets.js';
import type { Logger } from '../../kernel/log.ts';
import { HttpError, RawJson } from '../http/reply.ts';
import { createRouter, respond, TextResponse, type Router } from '../http/router.ts';
import {
  accountRoute,
  accountsRoute,
  deleteAccountRoute,
  depositRoute,
  equityRoute,
  exchangeOpenApi,
  healthRoute,
  openAccountRoute,
  orderRoute,
  ordersRoute,
  pnlRoute,
  positionsRoute,
  priceRoute,
  pricesRoute,
  prometheusRoute,
  servedElsewhere,
  setCashRoute,
} from '../openapi/exchange.ts';
import { openApiRoute } from '../openapi/document.ts';
import { answer, EXCHANGE_ERRORS, validate } from './handle.ts';
import type * as v from 'valibot';
import type { OrderResultView } from './wire.ts';
import { CreateAccountBody, DepositBody, EquitySince, EquitySnapshot, IdempotencyKey, OrderBody, OrderLimit, SetCashBody } from './wire.ts';
import { BOOK_SYMBOLS, type BookSymbol } from '../../kernel/domain.ts';

/** Body limit of the exchange's routes. */
const MAX_BODY_BYTES = 64 * 1024;
const WITH_BODY = { body: {} };
type OrderResultBody = v.InferInput<typeof OrderResultView>;

/** Mounts every exchange route on `app`; the router is returned for a draining stop. */
export function mountExchangeRoutes(app: TemplatedApp, ctx: ExchangeContext, metrics?: Pick<ExchangeMetrics, 'orderDone'>): Router {
  const router = createRouter(app, { log: ctx.log, errors: EXCHANGE_ERRORS, maxBodyBytes: MAX_BODY_BYTES });
  const pricesJson = (books: BookSnapshot[]) => new RawJson(JSON.stringify(books.map(priceView)));
  router.add(pricesRoute, () => ctx.books.renderFresh(pricesJson));

  router.add(priceRoute, ({ params }) => {
    const symbol = params.symbol ?? '';
    if (!(BOOK_SYMBOLS as readonly string[]).includes(symbol)) {
      throw new HttpError(400, { error: 'VALIDATION_ERROR', message: `symbol must be one of ${BOOK_SYMBOLS.join(', ')}` });
    }
    const book = ctx.books.fresh(symbol as BookSymbol);
    if (!book) throw new HttpError(503, { error: 'PRICE_UNAVAILABLE', message: `no order book for ${symbol} newer than the staleness cut-off` });
    return priceView(book);
  });

  router.add(
    openAccountRoute,
    async ({ body }) => {
      const b = validate(CreateAccountBody, body);
      return answer(await openAccount(ctx, b.name, dec(b.initialCash), dec(b.feeRate)), 201);
    },
    WITH_BODY,
  );

  router.add(accountsRoute, () => listAccounts(ctx));
  router.add(accountRoute, async ({ params }) => answer(await readAccount(ctx, params.id ?? '')));

  router.add(deleteAccountRoute, async ({ params }) => answer(await deleteAccount(ctx, params.id ?? ''), 204));

  router.add(
    depositRoute,
    async ({ params, body }) => {
      const b = validate(DepositBody, body);
      return answer(await depositCash(ctx, params.id ?? '', dec(b.amount), b.reason), 201);
    },
    WITH_BODY,
  );

  router.add(
    setCashRoute,
    async ({ params, body }) => {
      const b = validate(SetCashBody, body);
      return answer(await setCash(ctx, params.id ?? '', dec(b.target), b.reason));
    },
    WITH_BODY,
  );

  router.add(
    orderRoute,
    async ({ params, body, headers }) => {
      const raw = headers['idempotency-key'] ?? '';
      const idempotencyKey = raw === '' ? null : validate(IdempotencyKey, raw, 'header');
      const b = validate(OrderBody, body);
      const started = performance.now();
      let out: Awaited<ReturnType<typeof placeOrder>>;
      try {
        out = await placeOrder(ctx, { accountId: params.id ?? '', symbol: b.symbol, side: b.side, qty: b.qty, idempotencyKey });
      } catch (err) {
        metrics?.orderDone(err instanceof DependencyUnavailable ? 'UNAVAILABLE' : 'ERROR', (performance.now() - started) / 1000, false);
        throw err;
      }
      const seconds = (performance.now() - started) / 1000;
      if (!out.ok) {
        metrics?.orderDone(out.code, seconds, false);
        return answer(out);
      }
      metrics?.orderDone(out.value.body.status ?? 'UNKNOWN', seconds, out.value.replayed);
      // a first order is 201; a repeat answers the status recorded with it (201; 200 is documented for a repeat).
      // The body is the order result the engine made (a repeat: the same one, as the store kept it), typed
      // there as a record of strings: named here as what it is
      const result = out.value.body as OrderResultBody;
      return out.value.httpStatus === 200 ? respond(200, result) : respond(201, result);
    },
    WITH_BODY,
  );

  router.add(pnlRoute, async ({ params }) => answer(await readPnl(ctx, params.id ?? '')));
  router.add(positionsRoute, async ({ params }) => answer(await readPositions(ctx, params.id ?? '')));
  router.add(ordersRoute, async ({ params, query }) => {
    const limit = validate(OrderLimit, query.get('limit') ?? undefined, 'query');
    return answer(await readOrders(ctx, params.id ?? '', limit));
  });
  router.add(equityRoute, async ({ params, query }) => {
    const since = validate(EquitySince, query.get('since') ?? undefined, 'query');
    const snapshot = validate(EquitySnapshot, query.get('snapshot') ?? undefined, 'query');
    return answer(await readEquity(ctx, params.id ?? '', since, snapshot));
  });

  // the document lists what the router serves and documents, so it is made at the first read, once every route is in
  for (const spec of servedElsewhere()) router.documented(spec);
  let document: RawJson | null = null;
  router.add(openApiRoute, () => (document ??= new RawJson(JSON.stringify(exchangeOpenApi(router.specs())))));
  return router;
}

/** The management port's wording: the exchange's, with its own 404. */
const MANAGEMENT_ERRORS = { ...EXCHANGE_ERRORS, notFound: () => ({ error: 'NOT_FOUND', message: 'no such management route' }) };

/**
 * Mounts the management routes (docs/operations.md#processes): health `GET /actuator/health` ->
 * `{"status":"UP"}`, `{"status":"DOWN",...}` with 503 while the ledger store does not answer
 * (Redis down), and the Prometheus scrape `GET /actuator/prometheus` when a registry is given.
 */
export function mountManagementRoutes(app: TemplatedApp, store: Pick<ExchangeStore, 'ping'>, log: Logger, timeoutMs = 1_000, registry?: Registry): Router {
  const router = createRouter(app, { log, errors: MANAGEMENT_ERRORS });
  router.add(healthRoute, async () => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)));
    try {
      await Promise.race([store.ping(), deadline]);
      return { status: 'UP' as const };
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      return respond(503, { status: 'DOWN' as const, components: { ledgerStore: { status: 'DOWN', details: { error } } } });
    } finally {
      clearTimeout(timer);
    }
  });
  if (registry) router.add(prometheusRoute, async () => new TextResponse(await registry.metrics(), PROMETHEUS_CONTENT_TYPE));
  return router;
}
