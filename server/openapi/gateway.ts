/**
 * The gateway's route specs, one per route of docs/gateway-api.md#routes (paths without the `/api`
 * base: the gateway's router registers each GET under `/api` and without it, each POST under `/api`
 * with its bare path answering 405, docs/gateway-api.md#path-rules), and its OpenAPI document, built
 * from the specs the router registered: health, readiness and metrics, the bet history, the admin
 * route when enabled, and the WebSocket event stream (`GET /api/ws`: its events under
 * components.schemas and `x-websocket-events`).
 */
import * as v from 'valibot';
import { defineRoute, type ParameterSpec, type ResponseSpec } from '../http/route-spec.ts';
import { json, openApiDocument, type OpenApiDocument, type OperationSpec } from './document.ts';
import {
  ActionErrorSchema,
  ActionGetSchema,
  ActionsJsonSchema,
  ActionTransactionSchema,
  BalanceSchema,
  BetClosedEventSchema,
  BetIntentSchema,
  BetHistoryViewSchema,
  BetOpenEventSchema,
  BetPageSchema,
  BetReplayEventSchema,
  ContractStateBSchema,
  ContractStateSchema,
  DecisionSchema,
  ErrorBodySchema,
  FaucetGrantSchema,
  HealthSchema,
  LeaderboardSchema,
  NotReadySchema,
  PauseResultSchema,
  PlacedBetASchema,
  PriceEventSchema,
  PriceObjectSchema,
  ReadySchema,
  ResumeMessageSchema,
  WalletSchema,
} from '../gateway/wire.ts';

/** What the document depends on. */
export interface GatewayDocumentOptions {
  profile: 'A' | 'B';
}

const Seq = { seq: v.pipe(v.number(), v.safeInteger(), v.minValue(1)) };

const err = (description: string) => json(description, ErrorBodySchema);
const outage = {
  500: err('internal error'),
  503: json('a dependency (chain, Redis) is unavailable; retry after Retry-After seconds', ErrorBodySchema, ['Retry-After']),
};
/** POST /bet's 503: an outage, or a bet not sent (docs/gateway-api.md#errors: too many placements in flight, or not sent in time). */
const notSent = json(
  'not sent, nothing reached the chain: GW_MAX_PLACING placements in flight, or not sent within GW_BET_ANSWER_MS; or a dependency (Redis) is unavailable. Retry after Retry-After seconds',
  ErrorBodySchema,
  ['Retry-After'],
);
/** What every POST route may answer besides its own statuses: the router's refusals of a body. */
export const POST_ERRORS: Readonly<Record<number, ResponseSpec>> = { 400: err('invalid JSON body or invalid fields'), 413: err('body too large') };
/** What a POST path without `/api` answers (docs/gateway-api.md#path-rules). */
export const BARE_POST_ERRORS: Readonly<Record<number, ResponseSpec>> = { 405: err('POST routes answer only under /api') };
const AddressParam: ParameterSpec = { name: 'address', in: 'path', description: 'base58 address', schema: v.string() };

// the Solana Action of a bet (docs/gateway-api.md#bet-with-your-wallet), Profile A
const actionHeaders = ['X-Action-Version', 'X-Blockchain-Ids'];
const actionErr = (description: string, headers?: readonly string[]) => json(description, ActionErrorSchema, headers);
const actionOutage = {
  500: actionErr('internal error'),
  503: actionErr('the chain or the price is unavailable; retry after Retry-After seconds', ['Retry-After']),
};

export const actionGetRoute = defineRoute({
  method: 'get',
  path: '/actions/bet',
  summary: 'The Solana Action of a bet: an UP and a DOWN action with an amount in tokens; disabled with the reason while no bet can be taken',
  tags: ['game'],
  responses: { 200: json('the action', ActionGetSchema, actionHeaders), ...actionOutage },
});

export const actionPostRoute = defineRoute({
  method: 'post',
  path: '/actions/bet',
  summary: "A placement transaction for the account's wallet to sign and send (the relayer has signed it)",
  tags: ['game'],
  parameters: [
    { name: 'side', in: 'query', required: true, description: 'UP or DOWN', schema: v.string() },
    { name: 'amount', in: 'query', required: true, description: 'stake in tokens, at most 6 decimals', schema: v.string() },
  ],
  requestBody: { description: '`{account}`: the base58 public key of the wallet that signs', schema: v.object({ account: v.string() }) },
  responses: {
    200: json('the transaction (base64) and what it does', ActionTransactionSchema, actionHeaders),
    400: json(
      'invalid side, amount or account; an amount outside the limits; too few tokens or SOL (a body that is not JSON: `{error}` alone, as every route)',
      v.union([ActionErrorSchema, ErrorBodySchema]),
    ),
    403: actionErr('bets are paused'),
    409: actionErr('the account has an open bet (with openBetId), or the contract is not initialised'),
    ...actionOutage,
  },
});

export const actionsJsonRoute = defineRoute({
  method: 'get',
  path: '/actions.json',
  summary: "The site's Actions rules: every /api/actions/** path is an action",
  tags: ['game'],
  responses: { 200: json('the rules', ActionsJsonSchema, actionHeaders), ...actionOutage },
});

export const actionIconRoute = defineRoute({
  method: 'get',
  path: '/actions/icon.svg',
  summary: "The Action's icon",
  tags: ['game'],
  responses: { 200: { description: 'an SVG image', schema: v.string(), contentType: 'image/svg+xml' } },
});

/** `GET /state`: the contract state (Profile A). */
export const stateRouteA = defineRoute({
  method: 'get',
  path: '/state',
  summary: 'Contract state',
  tags: ['game'],
  responses: { 200: json('contract state', ContractStateSchema), 409: err('contract not initialised'), ...outage },
});

/** `GET /state` of Profile B: the contract state with the fixed bettor's. */
export const stateRouteB = defineRoute({ ...stateRouteA, responses: { ...stateRouteA.responses, 200: json('contract state', ContractStateBSchema) } });

/** `POST /wallet`: Profile A demands `{}` with a JSON content type, Profile B takes an empty body. */
export const walletRoute = (profile: 'A' | 'B') =>
  defineRoute({
    method: 'post',
    path: '/wallet',
    summary: 'Create a custodial wallet (test mode)',
    tags: ['wallets'],
    ...(profile === 'B' ? {} : { requestBody: { description: '`{}` with Content-Type: application/json', schema: v.object({}) } }),
    responses: {
      200: json('the new wallet', WalletSchema),
      403: err('not in test mode'),
      405: err('missing Content-Type: application/json or body (Profile A)'),
      ...outage,
    },
  });

export const faucetRoute = defineRoute({
  method: 'get',
  path: '/faucet/{address}',
  summary: 'Grant 5 SOL and 10000 tokens (test mode, local chain)',
  tags: ['wallets'],
  parameters: [AddressParam],
  responses: {
    200: json('the grant', FaucetGrantSchema),
    400: err('invalid address'),
    403: err('not in test mode, or not the local chain'),
    409: err('contract not initialised'),
    502: err('the chain refused the grant'),
    ...outage,
  },
});

export const balanceRoute = defineRoute({
  method: 'get',
  path: '/balance/{address}',
  summary: 'Balance of an address',
  tags: ['wallets'],
  parameters: [AddressParam],
  responses: { 200: json('balance object', BalanceSchema), 400: err('invalid address'), 409: err('contract not initialised'), ...outage },
});

export const betRouteA = defineRoute({
  method: 'post',
  path: '/bet',
  summary: 'Place a bet (Profile A)',
  tags: ['game'],
  requestBody: {
    description:
      '`{address, side, amountUnits}`; for an address whose key the gateway does not hold, also `intent: {signature, validUntil}` (docs/gateway-api.md#bet-intents)',
    schema: v.object({
      address: v.string(),
      side: v.string(),
      amountUnits: v.union([v.string(), v.number()]),
      intent: v.optional(v.object({ signature: v.string(), validUntil: v.union([v.string(), v.number()]) })),
    }),
  },
  responses: {
    200: json('the placed bet', PlacedBetASchema),
    403: err('bets are paused'),
    409: err('open bet (with openBetId) or contract not initialised'),
    502: err('the chain refused the transaction'),
    ...outage,
    500: err('the chain node is unreachable (refused the connection); sent and not confirmed in time ({error, tx, pending: true}); or internal error'),
    503: notSent,
  },
});

export const betRouteB = defineRoute({
  method: 'post',
  path: '/bet',
  summary: 'Bet for the fixed bettor (Profile B): a decision object',
  tags: ['game'],
  requestBody: { description: '`{side}`: UP/up/Up/0 or DOWN/down/Down/1', schema: v.object({ side: v.union([v.string(), v.number()]) }) },
  responses: {
    200: json('decision object (accepted or refused)', DecisionSchema),
    403: err('bets were paused between the decision and the transaction'),
    409: err('contract not initialised'),
    502: err('the chain refused the transaction'),
    ...outage,
    500: err('the chain node is unreachable (refused the connection), or internal error'),
    503: notSent,
  },
});

export const betIntentRoute = defineRoute({
  method: 'get',
  path: '/bet-intent/{address}',
  summary: "The text a bettor's wallet signs to allow one bet on an address whose key the gateway does not hold",
  tags: ['game'],
  parameters: [
    AddressParam,
    { name: 'side', in: 'query', required: true, description: 'UP or DOWN', schema: v.string() },
    { name: 'amountUnits', in: 'query', required: true, description: 'stake in token base units', schema: v.string() },
    { name: 'validSeconds', in: 'query', description: 'how long the intent holds, 1..3600 (120)', schema: v.string() },
  ],
  responses: { 200: json('the intent to sign', BetIntentSchema), 400: err('invalid address, side, amountUnits or validSeconds'), ...outage },
});

export const priceRoute = defineRoute({
  method: 'get',
  path: '/price',
  summary: 'Latest SOL price',
  tags: ['game'],
  responses: { 200: json('price object', PriceObjectSchema), 503: err('no tick yet'), 500: err('internal error') },
});

export const healthRoute = defineRoute({
  method: 'get',
  path: '/health',
  summary: 'Liveness with dependency checks',
  tags: ['operations'],
  responses: { 200: json('UP', HealthSchema), 503: json('DOWN', HealthSchema, ['Retry-After']) },
});

export const readyRoute = defineRoute({
  method: 'get',
  path: '/ready',
  summary: 'Readiness: chain, Redis and a fresh price',
  tags: ['operations'],
  responses: { 200: json('ready', ReadySchema), 503: json('not ready, naming what is missing', NotReadySchema, ['Retry-After']) },
});

export const eventsRoute = defineRoute({
  method: 'get',
  path: '/events',
  summary: 'History of the event stream (the same events a WebSocket connect with since replays)',
  tags: ['events'],
  parameters: [
    { name: 'since', in: 'query', description: 'events with seq above this (0)', schema: v.string() },
    { name: 'limit', in: 'query', description: 'events per page, 1..1000 (100)', schema: v.string() },
  ],
  responses: {
    200: json(
      'the stream epoch and the events after since, oldest first',
      v.object({ epoch: v.string(), events: v.array(v.looseObject({ type: v.string(), seq: v.number() })) }),
    ),
    400: err('bad since or limit'),
    503: json('the event log is unreachable; retry after Retry-After seconds', ErrorBodySchema, ['Retry-After']),
  },
});

export const metricsRoute = defineRoute({
  method: 'get',
  path: '/metrics',
  summary: 'Prometheus metrics',
  tags: ['operations'],
  responses: { 200: { description: 'Prometheus text exposition format', schema: v.string(), contentType: 'text/plain' } },
});

export const betRoute = defineRoute({
  method: 'get',
  path: '/bets/{id}',
  summary: 'A bet with its settlement evidence',
  tags: ['history'],
  parameters: [{ name: 'id', in: 'path', description: 'bet id, decimal u64', schema: v.string() }],
  responses: { 200: json('the bet', BetHistoryViewSchema), 400: err('malformed id'), 404: err('no such bet in the history'), ...outage },
});

export const betsRoute = defineRoute({
  method: 'get',
  path: '/bets',
  summary: "A bettor's bets, newest first",
  tags: ['history'],
  parameters: [
    { name: 'address', in: 'query', required: true, description: 'base58 address of the bettor', schema: v.string() },
    { name: 'limit', in: 'query', description: 'bets per page, 1..100 (20)', schema: v.string() },
    { name: 'cursor', in: 'query', description: 'the nextCursor of the page before', schema: v.string() },
  ],
  responses: { 200: json('a page; nextCursor null at the end', BetPageSchema), 400: err('bad address, limit or cursor'), ...outage },
});

export const leaderboardRoute = defineRoute({
  method: 'get',
  path: '/leaderboard',
  summary: 'Bettors ranked by net result (token base units, signed decimal string), highest first',
  tags: ['history'],
  parameters: [{ name: 'window', in: 'query', description: '<n>h or <n>d, default 24h, at most GW_HISTORY_DAYS', schema: v.string() }],
  responses: { 200: json('ranking', LeaderboardSchema), 400: err('bad window'), ...outage },
});

/** `GET /ws`: the WebSocket event stream, served by the event stream itself (server/gateway/event-stream.ts). */
export const wsRoute = (profile: 'A' | 'B') =>
  defineRoute({
    method: 'get',
    path: '/ws',
    summary: 'WebSocket event stream; `?since=<seq>` replays what was missed',
    tags: ['events'],
    parameters: [
      { name: 'since', in: 'query', description: 'last seq seen', schema: v.string() },
      { name: 'epoch', in: 'query', description: 'epoch of the last resume message', schema: v.string() },
    ],
    responses: {
      101: {
        description:
          'upgraded; JSON messages as in x-websocket-events; a socket whose missed events cannot be read is closed with 1013 and `retry-after-ms=<n>`',
      },
      400: err('not a WebSocket upgrade'),
      426: err('upgrade required'),
      503: err('too many sockets resuming, or the gateway holds as many sockets as it can: connect again after Retry-After seconds'),
    },
    extensions: { 'x-websocket-events': wsEvents(profile === 'B') },
  });

export const adminPauseRoute = defineRoute({
  method: 'post',
  path: '/admin/pause',
  summary: 'Pause or resume bet intake (Authorization: Bearer GW_ADMIN_TOKEN)',
  tags: ['operations'],
  requestBody: { description: '`{paused}`: true/false or 1/0', schema: v.object({ paused: v.union([v.boolean(), v.number()]) }) },
  responses: {
    200: json('the new state and its transaction', PauseResultSchema),
    401: err('admin token required'),
    409: err('contract not initialised'),
    502: err('the chain refused the transaction'),
    ...outage,
  },
});

/** Builds the gateway's document from the operations its router registered (GatewayRouter `operations()`). */
export function gatewayOpenApi(options: GatewayDocumentOptions, operations: readonly OperationSpec[]): OpenApiDocument {
  const b = options.profile === 'B';
  return openApiDocument({
    info: {
      title: `SOL up/down betting gateway (Profile ${options.profile})`,
      version: '1',
      description:
        'Amounts in token base units (1 token = 1000000), bet prices x 1e8, times as the spec says. Every answer carries Access-Control-Allow-Origin: *; HEAD answers like GET without a body; OPTIONS is a CORS preflight on every path.',
    },
    operations,
    schemas: {
      Error: ErrorBodySchema,
      PriceEvent: v.object({ ...PriceEventSchema.entries, ...Seq }),
      BetOpenEvent: v.object({ ...BetOpenEventSchema.entries, ...Seq }),
      BetClosedEvent: v.object({ ...BetClosedEventSchema.pipe[0].entries, ...Seq }),
      ...(b ? { BetReplayEvent: v.object({ ...BetReplayEventSchema.entries, ...Seq }) } : {}),
      ResumeMessage: ResumeMessageSchema,
    },
    unmatched: { unknownPath: { status: 404, schema: ErrorBodySchema }, methodNotAllowed: { status: 405, schema: ErrorBodySchema } },
  });
}

function wsEvents(profileB: boolean): Record<string, { when: string; schema: { $ref: string } }> {
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  return {
    price: { when: 'each price tick, and once on connect', schema: ref('PriceEvent') },
    bet_open: { when: 'a bet is accepted', schema: ref('BetOpenEvent') },
    bet_closed: { when: 'the scheduler settles a bet', schema: ref('BetClosedEvent') },
    ...(profileB ? { bet_replay: { when: 'a tie was replayed as a new bet (Profile B)', schema: ref('BetReplayEvent') } } : {}),
    resume: { when: 'after a reconnect with ?since=: whether the missed events could all be replayed', schema: ref('ResumeMessage') },
  };
}
