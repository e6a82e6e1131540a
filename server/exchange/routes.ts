/**
 * The exchange REST API under /api/v1 (spec §4; design: unspecified paths). Routes only
 * validate and translate; the runtime does the work.
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
import { HttpError, RawJson, reply, sendJson, sendPreflight, sendText, type HttpRequest, type HttpResponse, type TemplatedApp } from '../http.ts';
import { exchangeOpenApi } from '../openapi/exchange.ts';
import { answer, handler, InFlight, validate } from './handle.ts';
import { CreateAccountBody, DepositBody, EquitySince, EquitySnapshot, IdempotencyKey, OrderBody, OrderLimit, SetCashBody } from './wire.ts';
import { BOOK_SYMBOLS, type BookSymbol } from '../../kernel/domain.ts';

const API = '/api/v1';

type Run = Parameters<typeof handler>[2];
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** Mounts every exchange route on `app`. */
export function mountExchangeRoutes(app: TemplatedApp, ctx: ExchangeContext, inFlight = new InFlight(), metrics?: Pick<ExchangeMetrics, 'orderDone'>): void {
  // methods served per path: another method on a known path answers 405 with Allow (not 404)
  const methods = new Map<string, Method[]>();
  const route = (method: Method, path: string, paramCount: number, run: Run, opts: { withBody?: boolean; headers?: readonly string[] } = {}) => {
    const h = handler(ctx.log, { paramCount, withBody: opts.withBody ?? false, ...(opts.headers ? { headers: opts.headers } : {}), inFlight }, run);
    const pattern = API + path;
    if (method === 'GET') {
      app.get(pattern, h);
      app.head(pattern, h); // HEAD: the GET answer's headers, no body
    } else if (method === 'POST') app.post(pattern, h);
    else if (method === 'PUT') app.put(pattern, h);
    else app.del(pattern, h);
    methods.set(pattern, [...(methods.get(pattern) ?? []), method]);
  };
  const get = (path: string, paramCount: number, run: Run) => route('GET', path, paramCount, run);

  const pricesJson = (books: BookSnapshot[]) => new RawJson(JSON.stringify(books.map(priceView)));
  get('/prices', 0, async () => ({ status: 200, body: ctx.books.renderFresh(pricesJson) }));

  get('/prices/:symbol', 1, async ({ params }) => {
    const symbol = params[0] ?? '';
    if (!(BOOK_SYMBOLS as readonly string[]).includes(symbol)) {
      throw new HttpError(400, { error: 'VALIDATION_ERROR', message: `symbol must be one of ${BOOK_SYMBOLS.join(', ')}` });
    }
    const book = ctx.books.fresh(symbol as BookSymbol);
    if (!book) throw new HttpError(503, { error: 'PRICE_UNAVAILABLE', message: `no order book for ${symbol} newer than the staleness cut-off` });
    return { status: 200, body: priceView(book) };
  });

  route(
    'POST',
    '/accounts',
    0,
    async ({ body }) => {
      const b = validate(CreateAccountBody, body);
      return answer(await openAccount(ctx, b.name, dec(b.initialCash), dec(b.feeRate)), 201);
    },
    { withBody: true },
  );

  get('/accounts', 0, async () => ({ status: 200, body: await listAccounts(ctx) }));
  get('/accounts/:id', 1, async ({ params }) => answer(await readAccount(ctx, params[0] ?? '')));

  route('DELETE', '/accounts/:id', 1, async ({ params }) => answer(await deleteAccount(ctx, params[0] ?? ''), 204));

  route(
    'POST',
    '/accounts/:id/deposits',
    1,
    async ({ params, body }) => {
      const b = validate(DepositBody, body);
      return answer(await depositCash(ctx, params[0] ?? '', dec(b.amount), b.reason), 201);
    },
    { withBody: true },
  );

  route(
    'PUT',
    '/accounts/:id/cash',
    1,
    async ({ params, body }) => {
      const b = validate(SetCashBody, body);
      return answer(await setCash(ctx, params[0] ?? '', dec(b.target), b.reason));
    },
    { withBody: true },
  );

  route(
    'POST',
    '/accounts/:id/orders',
    1,
    async ({ params, body, headers }) => {
      const raw = headers['idempotency-key'] ?? '';
      const idempotencyKey = raw === '' ? null : validate(IdempotencyKey, raw, 'header');
      const b = validate(OrderBody, body);
      const started = performance.now();
      const done = (status: string, replayed = false) => metrics?.orderDone(status, (performance.now() - started) / 1000, replayed);
      const out = await placeOrder(ctx, { accountId: params[0] ?? '', symbol: b.symbol, side: b.side, qty: b.qty, idempotencyKey }).catch((err: unknown) => {
        done(err instanceof DependencyUnavailable ? 'UNAVAILABLE' : 'ERROR');
        throw err;
      });
      if (!out.ok) {
        done(out.code);
        return answer(out);
      }
      done(out.value.body.status ?? 'UNKNOWN', out.value.replayed);
      return { status: out.value.httpStatus, body: out.value.body };
    },
    { withBody: true, headers: ['idempotency-key'] },
  );

  get('/accounts/:id/pnl', 1, async ({ params }) => answer(await readPnl(ctx, params[0] ?? '')));
  get('/accounts/:id/positions', 1, async ({ params }) => answer(await readPositions(ctx, params[0] ?? '')));
  get('/accounts/:id/orders', 1, async ({ params, query }) => {
    const limit = validate(OrderLimit, query.get('limit') ?? undefined, 'query');
    return answer(await readOrders(ctx, params[0] ?? '', limit));
  });
  get('/accounts/:id/equity', 1, async ({ params, query }) => {
    const since = validate(EquitySince, query.get('since') ?? undefined, 'query');
    const snapshot = validate(EquitySnapshot, query.get('snapshot') ?? undefined, 'query');
    return answer(await readEquity(ctx, params[0] ?? '', since, snapshot));
  });

  const document = exchangeOpenApi();
  const openapi = handler(ctx.log, { paramCount: 0, withBody: false, inFlight }, async () => ({ status: 200, body: document }));
  app.get('/openapi.json', openapi);
  app.head('/openapi.json', openapi);
  methods.set('/openapi.json', ['GET']);

  app.options('/*', (res) => sendPreflight(res));
  for (const [pattern, allowed] of methods) {
    const allow = [...allowed, ...(allowed.includes('GET') ? ['HEAD'] : [])].join(', ');
    app.any(pattern, (res, req) => {
      const method = req.getCaseSensitiveMethod();
      sendJson(reply(res, method), 405, { error: 'METHOD_NOT_ALLOWED', message: `${method} is not allowed on ${req.getUrl()} (allowed: ${allow})` }, [
        ['Allow', allow],
      ]);
    });
  }
  app.any('/*', (res, req) => {
    const method = req.getCaseSensitiveMethod();
    sendJson(reply(res, method), 404, { error: 'NOT_FOUND', message: `no route for ${method} ${req.getUrl()}` });
  });
}

/**
 * Mounts the management routes: health (design: `GET /actuator/health` -> `{"status":"UP"}`),
 * `{"status":"DOWN",...}` with 503 while the ledger store does not answer (Redis down), and the
 * Prometheus scrape `GET /actuator/prometheus` when a registry is given.
 */
export function mountManagementRoutes(app: TemplatedApp, store: Pick<ExchangeStore, 'ping'>, timeoutMs = 1_000, registry?: Registry): void {
  const health = (res: HttpResponse, req: HttpRequest) => {
    const r = reply(res, req.getCaseSensitiveMethod());
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)));
    Promise.race([store.ping(), deadline])
      .then(
        () => sendJson(r, 200, { status: 'UP' }),
        (err: unknown) =>
          sendJson(r, 503, {
            status: 'DOWN',
            components: { ledgerStore: { status: 'DOWN', details: { error: err instanceof Error ? err.message : String(err) } } },
          }),
      )
      .finally(() => clearTimeout(timer));
  };
  app.get('/actuator/health', health);
  app.head('/actuator/health', health);
  if (registry) {
    const scrape = (res: HttpResponse, req: HttpRequest) => {
      const r = reply(res, req.getCaseSensitiveMethod());
      registry.metrics().then(
        (text) => sendText(r, 200, text, PROMETHEUS_CONTENT_TYPE),
        (err: unknown) => sendJson(r, 500, { error: 'METRICS_FAILED', message: err instanceof Error ? err.message : String(err) }),
      );
    };
    app.get('/actuator/prometheus', scrape);
    app.head('/actuator/prometheus', scrape);
  }
  app.any('/*', (res, req) => sendJson(reply(res, req.getCaseSensitiveMethod()), 404, { error: 'NOT_FOUND', message: 'no such management route' }));
}
