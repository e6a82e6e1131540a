/**
 * The exchange REST API under /api/v1 (spec §4; design: unspecified paths). Routes only
 * validate and translate; the runtime does the work.
 */
import { BOOK_SYMBOLS, type BookSymbol } from '../../adapters/feed/port.ts';
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
import { dec } from '../../runtime/exchange/money.ts';
import { placeOrder } from '../../runtime/exchange/orders.ts';
import { priceView } from '../../runtime/exchange/views.ts';
import { HttpError, reply, sendJson, sendPreflight, type TemplatedApp } from '../http.ts';
import { answer, handler, InFlight, validate } from './handle.ts';
import { CreateAccountBody, DepositBody, EquitySince, EquitySnapshot, IdempotencyKey, OrderBody, OrderLimit, SetCashBody } from './wire.ts';

const API = '/api/v1';

/** Mounts every exchange route on `app`. */
export function mountExchangeRoutes(app: TemplatedApp, ctx: ExchangeContext, inFlight = new InFlight()): void {
  const get = (path: string, paramCount: number, run: Parameters<typeof handler>[2]) =>
    app.get(API + path, handler(ctx.log, { paramCount, withBody: false, inFlight }, run));

  // Spec §4 GET /prices: only symbols with a fresh book (a stale price is never shown as current).
  get('/prices', 0, async () => ({ status: 200, body: ctx.books.freshAll().map(priceView) }));

  get('/prices/:symbol', 1, async ({ params }) => {
    const symbol = params[0] ?? '';
    if (!(BOOK_SYMBOLS as readonly string[]).includes(symbol)) {
      throw new HttpError(400, { error: 'VALIDATION_ERROR', message: `symbol must be one of ${BOOK_SYMBOLS.join(', ')}` });
    }
    const book = ctx.books.fresh(symbol as BookSymbol);
    if (!book) throw new HttpError(503, { error: 'PRICE_UNAVAILABLE', message: `no order book for ${symbol} newer than the staleness cut-off` });
    return { status: 200, body: priceView(book) };
  });

  app.post(
    `${API}/accounts`,
    handler(ctx.log, { paramCount: 0, withBody: true, inFlight }, async ({ body }) => {
      const b = validate(CreateAccountBody, body);
      return answer(await openAccount(ctx, b.name, dec(b.initialCash), dec(b.feeRate)), 201);
    }),
  );

  get('/accounts', 0, async () => ({ status: 200, body: await listAccounts(ctx) }));
  get('/accounts/:id', 1, async ({ params }) => answer(await readAccount(ctx, params[0] ?? '')));

  app.del(
    `${API}/accounts/:id`,
    handler(ctx.log, { paramCount: 1, withBody: false, inFlight }, async ({ params }) => answer(await deleteAccount(ctx, params[0] ?? ''), 204)),
  );

  app.post(
    `${API}/accounts/:id/deposits`,
    handler(ctx.log, { paramCount: 1, withBody: true, inFlight }, async ({ params, body }) => {
      const b = validate(DepositBody, body);
      return answer(await depositCash(ctx, params[0] ?? '', dec(b.amount), b.reason), 201);
    }),
  );

  app.put(
    `${API}/accounts/:id/cash`,
    handler(ctx.log, { paramCount: 1, withBody: true, inFlight }, async ({ params, body }) => {
      const b = validate(SetCashBody, body);
      return answer(await setCash(ctx, params[0] ?? '', dec(b.target), b.reason));
    }),
  );

  app.post(
    `${API}/accounts/:id/orders`,
    handler(ctx.log, { paramCount: 1, withBody: true, headers: ['idempotency-key'], inFlight }, async ({ params, body, headers }) => {
      const raw = headers['idempotency-key'] ?? '';
      const idempotencyKey = raw === '' ? null : validate(IdempotencyKey, raw, 'header');
      const b = validate(OrderBody, body);
      const out = await placeOrder(ctx, { accountId: params[0] ?? '', symbol: b.symbol, side: b.side, qty: b.qty, idempotencyKey });
      if (!out.ok) return answer(out);
      return { status: out.value.httpStatus, body: out.value.body };
    }),
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

  app.options('/*', (res) => sendPreflight(res));
  app.any('/*', (res, req) => {
    const r = reply(res);
    sendJson(r, 404, { error: 'NOT_FOUND', message: `no route for ${req.getCaseSensitiveMethod()} ${req.getUrl()}` });
  });
}

/** Mounts the management routes: health (design: `GET /actuator/health` -> `{"status":"UP"}`). */
export function mountManagementRoutes(app: TemplatedApp): void {
  app.get('/actuator/health', (res) => sendJson(reply(res), 200, { status: 'UP' }));
  app.any('/*', (res) => sendJson(reply(res), 404, { error: 'NOT_FOUND', message: 'no such management route' }));
}
