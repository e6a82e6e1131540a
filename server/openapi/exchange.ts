/**
 * The exchange's route specs and OpenAPI document: every `/api/v1` route (docs/exchange-api.md, with
 * the paths of docs/decisions.md#paths-the-contract-leaves-open) with every status it answers, and
 * the management port's routes (`/actuator/health`, `/actuator/prometheus`, on EXCHANGE_MGMT_PORT).
 * The router registers each route from its spec here; the document is built from what the router
 * registered (server/exchange/routes.ts).
 */
import * as v from 'valibot';
import { accountStreamSchemas, streamOperations } from './exchange-streams.ts';
import { defineRoute, type ParameterSpec, type Responses, type RouteSpec } from '../http/route-spec.ts';
import { json, openApiDocument, type OpenApiDocument, type OperationSpec } from './document.ts';
import {
  AccountTotalsView,
  AccountView,
  CashMovementView,
  CreateAccountBody,
  DepositBody,
  EquityPointView,
  ErrorView,
  OrderBody,
  OrderRecordView,
  OrderResultView,
  PnlView,
  PositionView,
  PriceView,
  SetCashBody,
} from '../exchange/wire.ts';

const API = '/api/v1';
const err = (description: string) => json(description, ErrorView);
const common = {
  500: err('internal error'),
  503: json('REDIS_UNAVAILABLE: the ledger store does not answer; retry after Retry-After seconds', ErrorView, ['Retry-After']),
};
const withBody = { 400: err('VALIDATION_ERROR'), 413: err('PAYLOAD_TOO_LARGE') };
const account = { 404: err('ACCOUNT_NOT_FOUND') };
const Id: ParameterSpec = { name: 'id', in: 'path', description: 'account id (UUID)', schema: v.string() };
/** A native route: its path under /api/v1, tagged `exchange`, answering the common outages. */
const op = <const R extends Responses>(o: RouteSpec<R>): RouteSpec<typeof common & R> => ({
  ...o,
  path: `${API}${o.path}`,
  tags: o.tags ?? ['exchange'],
  responses: { ...common, ...o.responses },
});

export const pricesRoute = op({
  method: 'get',
  path: '/prices',
  summary: 'Best bid/ask of every symbol with a fresh book',
  responses: { 200: json('prices', v.array(PriceView)) },
});
export const priceRoute = op({
  method: 'get',
  path: '/prices/{symbol}',
  summary: 'Best bid/ask of one symbol',
  parameters: [{ name: 'symbol', in: 'path', description: 'BTCUSDT, ETHUSDT or SOLUSDT', schema: v.string() }],
  responses: {
    200: json('price', PriceView),
    400: err('VALIDATION_ERROR: unknown symbol'),
    503: err('PRICE_UNAVAILABLE (book too old) or REDIS_UNAVAILABLE'),
  },
});
export const openAccountRoute = op({
  method: 'post',
  path: '/accounts',
  summary: 'Open an account',
  requestBody: { description: 'name, initialCash, optional feeRate', schema: CreateAccountBody },
  responses: { 201: json('account', AccountView), 409: err('NAME_TAKEN'), ...withBody },
});
export const accountsRoute = op({
  method: 'get',
  path: '/accounts',
  summary: 'Every account with its totals',
  responses: { 200: json('accounts', v.array(AccountTotalsView)) },
});
export const accountRoute = op({
  method: 'get',
  path: '/accounts/{id}',
  summary: 'An account with its totals',
  parameters: [Id],
  responses: { 200: json('account', AccountTotalsView), ...account },
});
export const deleteAccountRoute = op({
  method: 'delete',
  path: '/accounts/{id}',
  summary: 'Delete an account',
  parameters: [Id],
  responses: { 204: { description: 'deleted' }, ...account },
});
export const depositRoute = op({
  method: 'post',
  path: '/accounts/{id}/deposits',
  summary: 'Deposit (positive) or withdraw (negative) cash',
  parameters: [Id],
  requestBody: { description: 'amount, optional reason', schema: DepositBody },
  responses: { 201: json('cash movement', CashMovementView), 409: err('INSUFFICIENT_FUNDS'), ...account, ...withBody },
});
export const setCashRoute = op({
  method: 'put',
  path: '/accounts/{id}/cash',
  summary: 'Set cash to a target',
  parameters: [Id],
  requestBody: { description: 'target, optional reason', schema: SetCashBody },
  responses: { 200: json('cash movement', CashMovementView), ...account, ...withBody },
});
export const orderRoute = op({
  method: 'post',
  path: '/accounts/{id}/orders',
  summary: 'Market order walking the current book',
  parameters: [Id, { name: 'Idempotency-Key', in: 'header', description: 'a repeat with the same body answers the first result', schema: v.string() }],
  requestBody: { description: 'symbol, side, qty', schema: OrderBody },
  responses: {
    200: json('order result (repeat of an idempotent request)', OrderResultView),
    201: json('order result', OrderResultView),
    409: err('INSUFFICIENT_FUNDS or INSUFFICIENT_POSITION'),
    422: err('IDEMPOTENCY_KEY_REUSED'),
    503: err('PRICE_UNAVAILABLE or REDIS_UNAVAILABLE'),
    ...account,
    ...withBody,
  },
});
export const pnlRoute = op({
  method: 'get',
  path: '/accounts/{id}/pnl',
  summary: 'Profit and loss',
  parameters: [Id],
  responses: { 200: json('pnl', PnlView), ...account },
});
export const positionsRoute = op({
  method: 'get',
  path: '/accounts/{id}/positions',
  summary: 'Positions, closed ones included',
  parameters: [Id],
  responses: { 200: json('positions', v.array(PositionView)), ...account },
});
export const ordersRoute = op({
  method: 'get',
  path: '/accounts/{id}/orders',
  summary: 'Order history, newest first',
  parameters: [Id, { name: 'limit', in: 'query', description: '1..1000 (100)', schema: v.string() }],
  responses: { 200: json('orders', v.array(OrderRecordView)), 400: err('VALIDATION_ERROR'), ...account },
});
export const equityRoute = op({
  method: 'get',
  path: '/accounts/{id}/equity',
  summary: 'Equity curve',
  parameters: [
    Id,
    { name: 'since', in: 'query', description: 'ISO time: points with ts >= since', schema: v.string() },
    { name: 'snapshot', in: 'query', description: 'true: record a point now', schema: v.string() },
  ],
  responses: { 200: json('equity points', v.array(EquityPointView)), 400: err('VALIDATION_ERROR'), ...account },
});
export const healthRoute = defineRoute({
  method: 'get',
  path: '/actuator/health',
  summary: 'Health (management port EXCHANGE_MGMT_PORT)',
  tags: ['operations'],
  responses: {
    200: json('UP', v.object({ status: v.literal('UP') })),
    503: json('DOWN, naming the component', v.object({ status: v.literal('DOWN'), components: v.optional(v.record(v.string(), v.unknown())) })),
  },
  extensions: { 'x-port': 'EXCHANGE_MGMT_PORT' },
});
export const prometheusRoute = defineRoute({
  method: 'get',
  path: '/actuator/prometheus',
  summary: 'Prometheus metrics (management port EXCHANGE_MGMT_PORT)',
  tags: ['operations'],
  responses: { 200: { description: 'Prometheus text exposition format', schema: v.string(), contentType: 'text/plain' } },
  extensions: { 'x-port': 'EXCHANGE_MGMT_PORT' },
});

/** Routes the exchange's API port documents but does not serve through its router: the WebSocket streams and the management port. */
export const servedElsewhere = (): RouteSpec[] => [...streamOperations(), healthRoute, prometheusRoute];

/** Builds the exchange's document from the operations its API router registered and documented. */
export function exchangeOpenApi(operations: readonly OperationSpec[]): OpenApiDocument {
  return openApiDocument({
    info: {
      title: 'Paper-trading exchange emulator',
      version: '1',
      description:
        'Every number is a decimal string (money and quantities with 10 fraction digits). Errors are {error, message}. HEAD answers like GET without a body; OPTIONS is a CORS preflight.',
    },
    operations,
    schemas: { Error: ErrorView, ...accountStreamSchemas() },
    unmatched: { unknownPath: { status: 404, schema: ErrorView }, methodNotAllowed: { status: 405, schema: ErrorView } },
  });
}
