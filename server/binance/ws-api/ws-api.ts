/**
 * Binance's WebSocket API at `/ws-api/v3` on the exchange port, for the user data stream
 * (docs/exchange-api.md#binance-user-data-stream): requests `{id, method, params}` answered
 * `{id, status, result | error: {code, msg}, rateLimits}`; methods `ping`, `time`,
 * `userDataStream.subscribe.signature`, `userDataStream.unsubscribe`, `session.subscriptions`.
 * A subscription gets its account's events wrapped as `{subscriptionId, event}`; a connection may
 * hold several, one per account. Events fan out through uWS topics, one per account and
 * subscription id (`uds|<account>|<id>`), built only for ids in use; a connection 1 MiB behind is
 * closed. Deleting an API key ends its subscriptions with `eventStreamTerminated`.
 */
import type { HttpRequest, HttpResponse, TemplatedApp, us_socket_context_t, WebSocket } from 'uWebSockets.js';
import type { BinanceContext } from '../../../runtime/binance/context.ts';
import type { AccountEvent } from '../../../runtime/exchange/account-events.ts';
import type { AccountStream } from '../../../runtime/exchange/account-stream.ts';
import { reply, sendJson } from '../../http/reply.ts';
import { BinanceError, binance } from '../errors.ts';
import { verifySubscription } from './subscribe.ts';
import { userDataEvents } from './user-data.ts';
import { streamSocketLimits } from '../../http/sockets.ts';

/** The path of the WebSocket API. */
export const WS_API_PATH = '/ws-api/v3';
/** Most subscriptions one connection holds at once (Binance's limit). */
export const MAX_SUBSCRIPTIONS = 1000;
const WEIGHTS: Record<string, number> = {
  ping: 1,
  time: 1,
  'userDataStream.subscribe.signature': 2,
  'userDataStream.unsubscribe': 2,
  'session.subscriptions': 2,
};

interface Subscription {
  accountId: string;
  apiKey: string;
}
interface Session {
  address: string;
  /** whether answers carry `rateLimits` unless a request says otherwise (`?returnRateLimits=false`) */
  returnRateLimits: boolean;
  open: boolean;
  nextId: number;
  subscriptions: Map<number, Subscription>;
}
type Ws = WebSocket<Session>;

/** The running WebSocket API: what key deletions and shutdown call. */
export interface WsApi {
  /** Ends every subscription made with these keys (`eventStreamTerminated`). */
  terminate(apiKeys: readonly string[]): void;
  /** Stops the events and closes every connection (1001). */
  close(): void;
}

/** A refusal whose error carries `data` (a 429's `serverTime` and `retryAfter`). */
class WsRefusal extends Error {
  constructor(
    readonly error: BinanceError,
    readonly data: Record<string, number>,
  ) {
    super(error.msg);
  }
}

const topicOf = (accountId: string, subscriptionId: number) => `uds|${accountId}|${subscriptionId}`;

/** Mounts `/ws-api/v3` on `app`, fed by the account events of `stream`. */
export function mountWsApi(app: TemplatedApp, ctx: BinanceContext, stream: AccountStream): WsApi {
  /** subscription ids in use per account, with how many connections use each */
  const inUse = new Map<string, Map<number, number>>();
  /** the account stream's watch of each account with a subscription */
  const watching = new Map<string, () => void>();
  /** connections holding a subscription per API key */
  const byKey = new Map<string, Set<Ws>>();
  const sockets = new Set<Ws>();
  const track = (accountId: string, id: number, delta: 1 | -1) => {
    const ids = inUse.get(accountId) ?? new Map<number, number>();
    const n = (ids.get(id) ?? 0) + delta;
    if (n > 0) ids.set(id, n);
    else ids.delete(id);
    if (ids.size > 0) {
      inUse.set(accountId, ids);
      if (!watching.has(accountId)) watching.set(accountId, stream.watch(accountId));
    } else {
      inUse.delete(accountId);
      watching.get(accountId)?.();
      watching.delete(accountId);
    }
  };
  const drop = (ws: Ws, id: number, terminated: boolean) => {
    const session = ws.getUserData();
    const sub = session.subscriptions.get(id);
    if (!sub) return;
    session.subscriptions.delete(id);
    track(sub.accountId, id, -1);
    if (![...session.subscriptions.values()].some((s) => s.apiKey === sub.apiKey)) byKey.get(sub.apiKey)?.delete(ws);
    if (!session.open) return;
    ws.unsubscribe(topicOf(sub.accountId, id));
    if (terminated) ws.send(JSON.stringify({ subscriptionId: id, event: { e: 'eventStreamTerminated', E: ctx.exchange.now().getTime() } }), false);
  };

  const methods = {
    ping: () => ({}),
    time: () => ({ serverTime: ctx.exchange.now().getTime() }),
    'session.subscriptions': (ws: Ws) => [...ws.getUserData().subscriptions.keys()].map((subscriptionId) => ({ subscriptionId })),
    'userDataStream.subscribe.signature': async (ws: Ws, params: unknown) => {
      const key = await verifySubscription(ctx, params, ctx.exchange.now().getTime());
      const session = ws.getUserData();
      // one subscription per account and connection, as Binance: a second asks for the same one
      for (const [id, s] of session.subscriptions) if (s.accountId === key.accountId) return { subscriptionId: id };
      if (session.subscriptions.size >= MAX_SUBSCRIPTIONS) throw binance.invalidParam('apiKey');
      if (!session.open) return { subscriptionId: -1 };
      const id = session.nextId++;
      session.subscriptions.set(id, { accountId: key.accountId, apiKey: key.apiKey });
      track(key.accountId, id, 1);
      byKey.set(key.apiKey, (byKey.get(key.apiKey) ?? new Set()).add(ws));
      ws.subscribe(topicOf(key.accountId, id));
      return { subscriptionId: id };
    },
    'userDataStream.unsubscribe': (ws: Ws, params: unknown) => {
      const raw = typeof params === 'object' && params !== null ? (params as { subscriptionId?: unknown }).subscriptionId : undefined;
      const session = ws.getUserData();
      if (raw === undefined) {
        for (const id of [...session.subscriptions.keys()]) drop(ws, id, true);
        return {};
      }
      const id = typeof raw === 'string' && /^\d{1,9}$/.test(raw) ? Number(raw) : raw;
      if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0) throw binance.illegalChars('subscriptionId', '^[0-9]{1,9}$');
      drop(ws, id, true);
      return {};
    },
  } as const;

  app.ws<Session>(WS_API_PATH, {
    ...streamSocketLimits(64 * 1024),
    upgrade: (res: HttpResponse, req: HttpRequest, context: us_socket_context_t) => {
      const session: Session = {
        address: Buffer.from(res.getRemoteAddressAsText()).toString(),
        returnRateLimits: req.getQuery('returnRateLimits') !== 'false',
        open: true,
        nextId: 0,
        subscriptions: new Map(),
      };
      res.upgrade(session, req.getHeader('sec-websocket-key'), req.getHeader('sec-websocket-protocol'), req.getHeader('sec-websocket-extensions'), context);
    },
    open: (ws) => void sockets.add(ws),
    message: (ws, message) => {
      answer(ws, Buffer.from(message).toString('utf8')).catch((err: unknown) => ctx.exchange.log.error({ err }, 'ws-api answer failed'));
    },
    close: (ws) => {
      sockets.delete(ws);
      const session = ws.getUserData();
      session.open = false;
      for (const id of [...session.subscriptions.keys()]) drop(ws, id, false);
    },
  });

  // a plain GET (no Upgrade header) reaches here: Binance's answer to a request it cannot serve
  app.get(WS_API_PATH, (res) => sendJson(reply(res), 426, { code: -1000, msg: 'This is a WebSocket endpoint: connect with an Upgrade: websocket request.' }));

  /** Answers one request; an answer made after an await is corked. */
  async function answer(ws: Ws, text: string): Promise<void> {
    const session = ws.getUserData();
    let id: unknown = null;
    let body: Record<string, unknown>;
    let method = '';
    let request: { id?: unknown; method?: unknown; params?: unknown } | undefined;
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) request = parsed as typeof request;
    } catch {
      request = undefined;
    }
    if (request && (typeof request.id === 'string' || typeof request.id === 'number')) id = request.id;
    if (request && typeof request.method === 'string') method = request.method;
    const use = ctx.weights.spend(session.address, WEIGHTS[method] ?? 1);
    const rateLimits = [{ rateLimitType: 'REQUEST_WEIGHT', interval: 'MINUTE', intervalNum: 1, limit: ctx.weights.limit, count: use.used }];
    const asked =
      request && typeof request.params === 'object' && request.params !== null
        ? (request.params as { returnRateLimits?: unknown }).returnRateLimits
        : undefined;
    const withLimits = typeof asked === 'boolean' ? asked : session.returnRateLimits;
    try {
      if (use.over) {
        // a rate-limited answer says when to retry: the end of the minute, in ms
        const serverTime = ctx.exchange.now().getTime();
        throw new WsRefusal(binance.tooMuchWeight(ctx.weights.limit, use.retryAfterSeconds), {
          serverTime,
          retryAfter: serverTime + use.retryAfterSeconds * 1000,
        });
      }
      if (!request) throw binance.mandatory('id');
      if (method === '') throw binance.mandatory('method');
      if (request.params !== undefined && (typeof request.params !== 'object' || request.params === null || Array.isArray(request.params))) {
        throw binance.mandatory('params');
      }
      const run = (methods as Record<string, (ws: Ws, params: unknown) => unknown>)[method];
      if (!run) throw new BinanceError(400, -1020, 'This operation is not supported.');
      body = { id, status: 200, result: await run(ws, request.params ?? {}) };
    } catch (err) {
      const known = err instanceof WsRefusal ? err.error : err instanceof BinanceError ? err : unexpected(err);
      body = { id, status: known.status, error: { ...known.body(), ...(err instanceof WsRefusal ? { data: err.data } : {}) } };
    }
    if (withLimits) body.rateLimits = rateLimits;
    if (session.open) ws.cork(() => ws.send(JSON.stringify(body), false));
  }

  const unexpected = (err: unknown): BinanceError => {
    ctx.exchange.log.error({ err }, 'ws-api request failed');
    return binance.unknown();
  };

  /** execution ids (`I`) of this process, increasing */
  let executions = 0;
  const unsubscribe = stream.onEvent((e: AccountEvent) => {
    const ids = inUse.get(e.accountId);
    if (!ids) return;
    const events = userDataEvents(e, ++executions);
    for (const event of events) for (const id of ids.keys()) app.publish(topicOf(e.accountId, id), JSON.stringify({ subscriptionId: id, event }), false);
  });
  return {
    terminate(apiKeys) {
      for (const apiKey of apiKeys)
        for (const ws of [...(byKey.get(apiKey) ?? [])]) {
          const ids = [...ws.getUserData().subscriptions].filter(([, s]) => s.apiKey === apiKey).map(([id]) => id);
          ws.cork(() => ids.forEach((id) => drop(ws, id, true)));
        }
    },
    close() {
      unsubscribe();
      for (const ws of [...sockets]) ws.end(1001, 'server shutting down');
    },
  };
}
