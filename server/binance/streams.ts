/**
 * Binance's market streams on the exchange port (docs/exchange-api.md#binance-market-streams):
 * `/ws/<stream>[/<stream>...]` sends each event as it is, `/stream?streams=a/b` wraps it as
 * `{stream, data}`; on either, `SUBSCRIBE`, `UNSUBSCRIBE`, `LIST_SUBSCRIPTIONS` and
 * `SET_PROPERTY` / `GET_PROPERTY` (`combined`) are answered `{result, id}` (more than 5 control
 * messages a second close the connection). Events fan out through uWS topics (one per wrapping and
 * stream name) and are
 * built only for topics with subscribers; a client that falls 1 MiB behind is disconnected
 * rather than buffered without end. Diff updates come from `DepthBatches`, whose `U`/`u` line up
 * with REST depth's `lastUpdateId`.
 */
import type { HttpRequest, HttpResponse, TemplatedApp, us_socket_context_t, WebSocket } from 'uWebSockets.js';
import { BOOK_SYMBOLS, type BookSymbol } from '../../kernel/domain.ts';
import { DepthBatches, fmt8, type SequencedBook } from '../../runtime/binance/book-sequence.ts';
import type { BinanceContext } from '../../runtime/binance/context.ts';
import { parseStream } from './stream-names.ts';
import { startTapeStreams } from './tape-streams.ts';
import { streamSocketLimits } from '../http/sockets.ts';

/** How a connection's events are written: as they are (`/ws`) or wrapped (`/stream`). */
type Mode = 'raw' | 'combined';
interface Conn {
  mode: Mode;
  initial: string[];
  /** control messages in the current second, and that second */
  messages: number;
  second: number;
}

/** Control messages a connection may send per second; past it the connection is closed (Binance's limit). */
export const MAX_MESSAGES_PER_SECOND = 5;
/** Most streams one connection may hold (Binance's limit). */
export const MAX_STREAMS_PER_CONNECTION = 1024;

/** The running streams: `close` stops their timers. */
export interface BinanceStreams {
  close(): void;
}

const topic = (mode: Mode, name: string) => `${mode}|${name}`;

/** Mounts `/ws`, `/ws/*` and `/stream` on `app` and starts the depth timers. */
export function mountBinanceStreams(app: TemplatedApp, ctx: BinanceContext): BinanceStreams {
  const behavior = {
    ...streamSocketLimits(64 * 1024),
    upgrade: (res: HttpResponse, req: HttpRequest, context: us_socket_context_t) => {
      const url = req.getUrl();
      const combined = url === '/stream';
      const names = combined ? decodeURIComponent(req.getQuery('streams') ?? '').split('/') : url.slice('/ws/'.length).split('/');
      // names this exchange does not serve are left out, as Binance does (`/ws/0` is a connection with none)
      const initial = names.filter((n) => parseStream(n) !== undefined).slice(0, MAX_STREAMS_PER_CONNECTION);
      const conn: Conn = { mode: combined ? 'combined' : 'raw', initial, messages: 0, second: 0 };
      res.upgrade(conn, req.getHeader('sec-websocket-key'), req.getHeader('sec-websocket-protocol'), req.getHeader('sec-websocket-extensions'), context);
    },
    open: (ws: WebSocket<Conn>) => {
      const { mode, initial } = ws.getUserData();
      for (const name of initial) ws.subscribe(topic(mode, name));
    },
    message: (ws: WebSocket<Conn>, message: ArrayBuffer) => {
      const conn = ws.getUserData();
      const second = Math.floor(Date.now() / 1000);
      if (second !== conn.second) Object.assign(conn, { second, messages: 0 });
      if (++conn.messages > MAX_MESSAGES_PER_SECOND) return ws.end(1008, 'too many messages');
      const answer = control(ws, Buffer.from(message).toString('utf8'));
      ws.send(JSON.stringify(answer), false);
    },
  };
  app.ws<Conn>('/ws', behavior);
  app.ws<Conn>('/ws/*', behavior);
  app.ws<Conn>('/stream', behavior);

  const publish = (name: string, payload: () => string): void => {
    const raw = topic('raw', name);
    const wrapped = topic('combined', name);
    const toRaw = app.numSubscribers(raw) > 0;
    const toWrapped = app.numSubscribers(wrapped) > 0;
    if (!toRaw && !toWrapped) return;
    const data = payload();
    if (toRaw) app.publish(raw, data, false);
    if (toWrapped) app.publish(wrapped, `{"stream":${JSON.stringify(name)},"data":${data}}`, false);
  };
  const listened = (names: string[]) => names.some((n) => app.numSubscribers(topic('raw', n)) > 0 || app.numSubscribers(topic('combined', n)) > 0);

  const stopTicker = ctx.books.onBook(({ book, id }: SequencedBook) =>
    publish(`${book.symbol.toLowerCase()}@bookTicker`, () =>
      JSON.stringify({
        u: id,
        s: book.symbol,
        b: fmt8(book.bids[0]?.[0] ?? '0'),
        B: fmt8(book.bids[0]?.[1] ?? '0'),
        a: fmt8(book.asks[0]?.[0] ?? '0'),
        A: fmt8(book.asks[0]?.[1] ?? '0'),
      }),
    ),
  );

  const stopTape = startTapeStreams(ctx, { publish, listened });

  const batches = { 100: new DepthBatches(ctx.books), 1000: new DepthBatches(ctx.books) };
  const tick = (speed: 100 | 1000) => {
    for (const symbol of BOOK_SYMBOLS) depthTick(symbol, speed);
  };
  const depthTick = (symbol: BookSymbol, speed: 100 | 1000) => {
    const lower = symbol.toLowerCase();
    const suffixes = speed === 100 ? ['@100ms'] : ['', '@1000ms'];
    const diffNames = suffixes.map((s) => `${lower}@depth${s}`);
    const partialNames = [5, 10, 20].flatMap((n) => suffixes.map((s) => [n, `${lower}@depth${n}${s}`] as const));
    const diff = batches[speed].tick(symbol, listened(diffNames));
    const now = ctx.exchange.now().getTime();
    if (diff) {
      const data = JSON.stringify({ e: 'depthUpdate', E: now, s: symbol, U: diff.U, u: diff.u, b: diff.bids, a: diff.asks });
      for (const name of diffNames) publish(name, () => data);
    }
    const last = batches[speed].lastOf(symbol);
    if (!last || last.id === lastPartial[speed].get(symbol)) return;
    lastPartial[speed].set(symbol, last.id);
    for (const [levels, name] of partialNames)
      publish(name, () => JSON.stringify({ lastUpdateId: last.id, bids: last.wire.bids.slice(0, levels), asks: last.wire.asks.slice(0, levels) }));
  };
  const lastPartial = { 100: new Map<BookSymbol, number>(), 1000: new Map<BookSymbol, number>() };
  const fast = setInterval(() => tick(100), 100);
  const slow = setInterval(() => tick(1000), 1000);
  fast.unref();
  slow.unref();
  return {
    close() {
      clearInterval(fast);
      clearInterval(slow);
      stopTicker();
      stopTape();
    },
  };
}

/** A control message's answer (docs/exchange-api.md#binance-market-streams). */
function control(ws: WebSocket<Conn>, text: string): Record<string, unknown> {
  let request: unknown;
  try {
    request = JSON.parse(text);
  } catch {
    return { error: { code: 3, msg: 'Invalid JSON: expected value at line 1 column 1' }, id: null };
  }
  if (typeof request !== 'object' || request === null || Array.isArray(request)) return invalid('expected an object', null);
  const { method, params, id } = request as { method?: unknown; params?: unknown; id?: unknown };
  // ids Binance takes: a 64-bit integer, a string of at most 36 characters, or null
  const rid = typeof id === 'number' || typeof id === 'string' ? id : null;
  if (id !== undefined && id !== null && !((typeof id === 'number' && Number.isSafeInteger(id)) || (typeof id === 'string' && id.length <= 36))) {
    return invalid('request ID must be an unsigned integer', null);
  }
  if (typeof method !== 'string') return invalid('missing field `method`', rid);
  const { mode } = ws.getUserData();
  const mine = () => ws.getTopics().map((t) => t.slice(mode.length + 1));
  if (method === 'LIST_SUBSCRIPTIONS') return { result: mine(), id: rid };
  if (method === 'SET_PROPERTY' || method === 'GET_PROPERTY') return property(ws, method, params, rid);
  if (method !== 'SUBSCRIBE' && method !== 'UNSUBSCRIBE') {
    return invalid(
      `unknown variant \`${method}\`, expected one of \`SUBSCRIBE\`, \`UNSUBSCRIBE\`, \`LIST_SUBSCRIPTIONS\`, \`SET_PROPERTY\`, \`GET_PROPERTY\``,
      rid,
    );
  }
  if (!Array.isArray(params) || params.some((p) => typeof p !== 'string')) return invalid('params must be an array of stream names', rid);
  const names = params as string[];
  // names not served are left out; the served ones of the request still count, and the answer names the first left out
  const served = names.filter((n) => parseStream(n) !== undefined);
  const unknown = names.find((n) => parseStream(n) === undefined);
  if (method === 'SUBSCRIBE') {
    if (new Set([...mine(), ...served]).size > MAX_STREAMS_PER_CONNECTION) return invalid(`too many streams: at most ${MAX_STREAMS_PER_CONNECTION}`, rid);
    for (const n of served) ws.subscribe(topic(mode, n));
  } else for (const n of served) ws.unsubscribe(topic(mode, n));
  if (unknown !== undefined) return invalid(`invalid stream name \`${unknown}\``, rid);
  return { result: null, id: rid };
}

/** SET_PROPERTY / GET_PROPERTY of `combined`, the one property (docs/exchange-api.md#binance-market-streams). */
function property(ws: WebSocket<Conn>, method: 'SET_PROPERTY' | 'GET_PROPERTY', params: unknown, id: unknown): Record<string, unknown> {
  const [name, value] = Array.isArray(params) ? (params as unknown[]) : [];
  if (typeof name !== 'string') return invalid('property name must be a string', id);
  if (name !== 'combined') return { error: { code: 0, msg: 'Unknown property' }, id };
  const conn = ws.getUserData();
  if (method === 'GET_PROPERTY') return { result: conn.mode === 'combined', id };
  if (typeof value !== 'boolean') return { error: { code: 1, msg: 'Invalid value type: expected Boolean' }, id };
  const mode: Mode = value ? 'combined' : 'raw';
  if (mode !== conn.mode) {
    // the connection's streams move to the other wrapping's topics
    const names = ws.getTopics().map((t) => t.slice(conn.mode.length + 1));
    for (const n of names) ws.unsubscribe(topic(conn.mode, n));
    conn.mode = mode;
    for (const n of names) ws.subscribe(topic(mode, n));
  }
  return { result: null, id };
}

const invalid = (why: string, id: unknown) => ({ error: { code: 2, msg: `Invalid request: ${why}` }, id });
