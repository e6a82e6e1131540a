/**
 * The native account stream (docs/exchange-api.md#account-stream): `GET /api/v1/accounts/{id}/ws`
 * upgraded to a WebSocket that sends the account's events (`order`, `balance`, `fill`, `cash`),
 * each with the account's `seq`. The first message says where the account's log stands
 * (`{type: "resume", accountId, recovered, epoch, seq}`); with `?since=<seq>` (and `&epoch=`) the
 * events after `since` that the log holds follow, then live ones, with no gap and no duplicate:
 * the replay sends only events already delivered live, and the socket joins the account's uWS topic
 * in the same synchronous step in which it has caught up (the gateway's rule,
 * docs/gateway-api.md#resume). Like every `/api/v1` route it needs no credential.
 *
 * A socket more than 1 MiB behind is closed (the client resumes with `since`); a replay waits for
 * `drain` above 256 KiB; sends after an await are corked.
 */
import type { HttpRequest, HttpResponse, TemplatedApp, us_socket_context_t, WebSocket } from 'uWebSockets.js';
import type { ExchangeContext } from '../../runtime/exchange/context.ts';
import { nativeAccountEvent, type AccountResumeMessage } from '../../runtime/exchange/account-events.ts';
import type { AccountStream } from '../../runtime/exchange/account-stream.ts';
import { reply, sendJson } from '../http/reply.ts';
import { streamSocketLimits } from '../http/sockets.ts';

/** The stream's path (uWS pattern). */
export const ACCOUNT_STREAM_PATH = '/api/v1/accounts/:id/ws';
const REPLAY_HIGH_WATER = 256 * 1024;
const PAGE = 500;

interface Socket {
  accountId: string;
  since: number | undefined;
  epoch: string | undefined;
  open: boolean;
  drained: (() => void) | undefined;
}

/** The uWS topic of an account's live events. */
const topicOf = (accountId: string) => `account|${accountId}`;

/** Mounts the stream on `app` and publishes the account events of `stream` to it; returns what stops it (open sockets are closed with 1001). */
export function mountAccountStream(app: TemplatedApp, ctx: ExchangeContext, stream: AccountStream): () => void {
  const sockets = new Set<WebSocket<Socket>>();
  app.ws<Socket>(ACCOUNT_STREAM_PATH, {
    ...streamSocketLimits(4 * 1024),
    upgrade: (res: HttpResponse, req: HttpRequest, context: us_socket_context_t) => upgrade(ctx, res, req, context),
    open: (ws) => {
      sockets.add(ws);
      const s = ws.getUserData();
      start(stream, ws, s).catch((err: unknown) => {
        ctx.log.error({ err, accountId: s.accountId }, 'account stream replay failed; closing the socket');
        if (s.open) ws.end(1011, 'replay failed');
      });
    },
    drain: (ws) => {
      if (ws.getBufferedAmount() <= REPLAY_HIGH_WATER) ws.getUserData().drained?.();
    },
    close: (ws) => {
      sockets.delete(ws);
      const s = ws.getUserData();
      s.open = false;
      s.drained?.();
    },
  });
  // a plain GET (no Upgrade header) reaches here: say what the path needs
  app.get(ACCOUNT_STREAM_PATH, (res) =>
    sendJson(reply(res), 426, { error: 'UPGRADE_REQUIRED', message: 'this is a WebSocket endpoint: connect with an Upgrade: websocket request' }, [
      ['Upgrade', 'websocket'],
    ]),
  );
  const unsubscribe = stream.onEvent((e) => {
    // an event with no seq was not logged (no stream was ever opened for its account here)
    if (e.seq === 0) return;
    const topic = topicOf(e.accountId);
    if (app.numSubscribers(topic) > 0) app.publish(topic, JSON.stringify(nativeAccountEvent(e)), false);
  });
  return () => {
    unsubscribe();
    for (const ws of [...sockets]) ws.end(1001, 'server shutting down');
  };
}

/** Checks the query and the account (404 when it does not exist), then upgrades. */
function upgrade(ctx: ExchangeContext, res: HttpResponse, req: HttpRequest, context: us_socket_context_t): void {
  let accountId: string;
  try {
    accountId = decodeURIComponent(req.getParameter(0) ?? '');
  } catch {
    // a malformed percent escape is the client's mistake, never a crash
    return sendJson(reply(res), 400, { error: 'VALIDATION_ERROR', message: 'the account id is not a valid path segment' });
  }
  const sinceText = req.getQuery('since') ?? '';
  const epochText = req.getQuery('epoch') ?? '';
  const headers = [req.getHeader('sec-websocket-key'), req.getHeader('sec-websocket-protocol'), req.getHeader('sec-websocket-extensions')] as const;
  const r = reply(res);
  if (sinceText !== '' && !/^\d{1,15}$/.test(sinceText)) {
    return sendJson(r, 400, { error: 'VALIDATION_ERROR', message: 'since must be a non-negative integer (the last seq received)' });
  }
  if (epochText.length > 200) return sendJson(r, 400, { error: 'VALIDATION_ERROR', message: 'epoch must be the epoch of the last resume message' });
  ctx.store.load(accountId).then(
    (loaded) => {
      if (r.aborted) return;
      if (!loaded) return sendJson(r, 404, { error: 'ACCOUNT_NOT_FOUND', message: `account ${accountId} does not exist` });
      const s: Socket = {
        accountId,
        since: sinceText === '' ? undefined : Number(sinceText),
        epoch: epochText === '' ? undefined : epochText,
        open: true,
        drained: undefined,
      };
      res.cork(() => res.upgrade(s, ...headers, context));
    },
    (err: unknown) => {
      ctx.log.warn({ err: err instanceof Error ? err.message : err, accountId }, 'account stream: ledger store unavailable');
      sendJson(r, 503, { error: 'REDIS_UNAVAILABLE', message: 'the ledger store does not answer; try again' }, [['Retry-After', '2']]);
    },
  );
}

/** The resume message, then the replay after `since` (when asked), then live. */
async function start(stream: AccountStream, ws: WebSocket<Socket>, s: Socket): Promise<void> {
  // from here on the account's events are logged, so what comes after this connect can be resumed
  await stream.enroll(s.accountId);
  const log = stream.logOf(s.accountId);
  const [epoch, first, last] = await Promise.all([log.epoch(), log.firstSeq(), stream.caughtUp(s.accountId)]);
  if (!s.open) return;
  const since = s.since ?? last;
  const sameEpoch = s.epoch === undefined || s.epoch === epoch;
  const recovered = s.since === undefined || (sameEpoch && since <= last && since >= first - 1);
  // another epoch, or a since past the log's end (a memory log restarted): everything held is new to the client
  let cursor = !sameEpoch || since > last ? 0 : since;
  ws.cork(() => ws.send(JSON.stringify({ type: 'resume', accountId: s.accountId, recovered, epoch, seq: last } satisfies AccountResumeMessage), false));
  for (;;) {
    if (!s.open) return;
    if (cursor >= stream.lastDelivered(s.accountId)) {
      // caught up: join live in this same synchronous step, so nothing comes twice or goes missing
      ws.subscribe(topicOf(s.accountId));
      return;
    }
    const page = (await log.readSince(cursor, PAGE)).filter((e) => e.seq <= stream.lastDelivered(s.accountId));
    if (!s.open) return;
    if (page.length === 0) {
      cursor = stream.lastDelivered(s.accountId);
      continue;
    }
    let i = 0;
    while (i < page.length) {
      if (!s.open) return;
      ws.cork(() => {
        while (i < page.length && ws.getBufferedAmount() <= REPLAY_HIGH_WATER) {
          const e = page[i++];
          if (!e) break;
          ws.send(JSON.stringify(nativeAccountEvent(e)), false);
          cursor = e.seq;
        }
      });
      if (s.open && ws.getBufferedAmount() > REPLAY_HIGH_WATER) await new Promise<void>((resolve) => (s.drained = resolve));
      s.drained = undefined;
    }
  }
}
