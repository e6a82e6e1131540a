/**
 * BookFeed from Binance public market streams: one combined stream of `<symbol>@depth20@100ms`
 * partial books (the live order books of docs/exchange-api.md#symbols). Binance sends no event time with
 * these, so each book is stamped with its arrival time, which is what the 30 s staleness rule
 * (docs/exchange-api.md#symbols) measures. The link reconnects with backoff, is replaced before Binance's 24 h
 * limit, answers server pings (ws `autoPong`), and is dropped when silent.
 *
 * @example
 *   const feed = new BinanceBookFeed({ baseUrl: process.env.BINANCE_WS_URL });
 *   feed.onBook((b) => books.set(b.symbol, b)); await feed.start();
 */
import WebSocket from 'ws';
import * as v from 'valibot';
import { componentLog, log as rootLog, type Logger } from '../../kernel/log.ts';
import { DroppedLog } from './dropped-log.ts';
import { Listeners } from './listeners.ts';
import { checkBook } from './messages.ts';
import { type BookFeed, type BookSnapshot, type Unsubscribe } from './port.ts';
import type { Random } from './random.ts';
import { BOOK_SYMBOLS, type BookSymbol } from '../../kernel/domain.ts';
import { backoffMs } from '../../kernel/backoff.ts';

/** Binance's public market-stream endpoint. */
export const BINANCE_WS_URL = 'wss://stream.binance.com:9443';

/** Combined-stream URL of the 20-level partial books of `symbols`. */
export function depthStreamUrl(baseUrl: string, symbols: readonly BookSymbol[]): string {
  const streams = symbols.map((s) => `${s.toLowerCase()}@depth20@100ms`).join('/');
  return `${baseUrl.replace(/\/+$/, '')}/stream?streams=${streams}`;
}

/** One combined-stream frame carrying a partial book. */
const DepthFrame = v.object({
  stream: v.string(),
  data: v.object({
    lastUpdateId: v.pipe(v.number(), v.safeInteger()),
    bids: v.array(v.tuple([v.string(), v.string()])),
    asks: v.array(v.tuple([v.string(), v.string()])),
  }),
});

const ZERO = /^0*(\.0*)?$/;

/** Options of the Binance feed; the defaults suit the real endpoint. */
export interface BinanceBookFeedOptions {
  /** `wss://host:port` without path (default Binance's; env `BINANCE_WS_URL`) */
  baseUrl?: string;
  symbols?: readonly BookSymbol[];
  /** arrival clock used to stamp books */
  now?: () => number;
  /** jitter source of the reconnect backoff */
  random?: Random;
  /** first and longest reconnect delay, ms */
  backoffInitialMs?: number;
  backoffMaxMs?: number;
  /** the link is replaced after this long; Binance cuts at 24 h */
  maxConnectionAgeMs?: number;
  /** a link with no frame for this long is dropped and redialled */
  silenceTimeoutMs?: number;
  /** start() fails when no link opens within this long */
  connectTimeoutMs?: number;
  logger?: Logger;
}

/** Order books of BTCUSDT/ETHUSDT/SOLUSDT from Binance's combined depth stream. */
export class BinanceBookFeed implements BookFeed {
  readonly url: string;
  private readonly symbols: readonly BookSymbol[];
  private readonly now: () => number;
  private readonly random: Random;
  private readonly opts: Required<
    Pick<BinanceBookFeedOptions, 'backoffInitialMs' | 'backoffMaxMs' | 'maxConnectionAgeMs' | 'silenceTimeoutMs' | 'connectTimeoutMs'>
  >;
  private readonly listeners: Listeners<BookSnapshot>;
  private readonly log: Logger;
  private readonly lastUpdateId = new Map<BookSymbol, number>();
  private current: WebSocket | undefined;
  private dialling: WebSocket | undefined;
  private running = false;
  private attempt = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private ageTimer: NodeJS.Timeout | undefined;
  private silenceTimer: NodeJS.Timeout | undefined;
  private pendingStart: { resolve: () => void; reject: (err: Error) => void; timer: NodeJS.Timeout } | undefined;
  private readonly drops: DroppedLog;
  /** links opened since construction */
  connections = 0;

  constructor(options: BinanceBookFeedOptions = {}) {
    this.symbols = options.symbols ?? BOOK_SYMBOLS;
    this.url = depthStreamUrl(options.baseUrl ?? BINANCE_WS_URL, this.symbols);
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.opts = {
      backoffInitialMs: options.backoffInitialMs ?? 500,
      backoffMaxMs: options.backoffMaxMs ?? 30_000,
      maxConnectionAgeMs: options.maxConnectionAgeMs ?? 23.5 * 3_600_000,
      silenceTimeoutMs: options.silenceTimeoutMs ?? 30_000,
      connectTimeoutMs: options.connectTimeoutMs ?? 15_000,
    };
    this.log = componentLog(options.logger ?? rootLog, 'binance-book-feed');
    this.listeners = new Listeners(this.log);
    this.drops = new DroppedLog(this.log, 'malformed Binance frame dropped');
  }

  /** frames dropped as malformed since construction */
  get dropped(): number {
    return this.drops.total;
  }

  /** Resolves when the first link is open; rejects (and stops) when none opens within `connectTimeoutMs`. */
  start(): Promise<void> {
    if (this.running) return Promise.resolve();
    this.running = true;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.settleStart(new Error(`no connection to ${this.url} within ${this.opts.connectTimeoutMs} ms`));
        this.stop().catch((err: unknown) => this.log.warn({ err }, 'Binance book stream did not stop cleanly'));
      }, this.opts.connectTimeoutMs);
      this.pendingStart = { resolve, reject, timer };
      this.dial();
    });
  }

  onBook(listener: (book: BookSnapshot) => void): Unsubscribe {
    return this.listeners.add(listener);
  }

  /** Closes the link and stops redialling. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.settleStart(new Error('stopped before the first connection'));
    for (const t of [this.reconnectTimer, this.ageTimer, this.silenceTimer]) clearTimeout(t);
    const sockets = [this.current, this.dialling].filter((ws): ws is WebSocket => ws !== undefined);
    this.current = this.dialling = undefined;
    await Promise.all(sockets.map(closeSocket));
    this.log.info({ dropped: this.dropped }, 'Binance book stream stopped');
  }

  private dial(): void {
    this.reconnectTimer = undefined;
    const ws = new WebSocket(this.url, { autoPong: true, handshakeTimeout: 10_000, perMessageDeflate: false });
    this.dialling = ws;
    let validSeen = false;
    ws.on('open', () => {
      if (!this.running || ws !== this.dialling) return void ws.terminate();
      const previous = this.current;
      this.current = ws;
      this.dialling = undefined;
      this.connections++;
      this.log.info({ url: this.url, replacing: previous !== undefined }, 'Binance book stream connected');
      // proactive replacement: the new link is open before the old one closes, so no book is missed
      if (previous) closeSocket(previous).catch(() => undefined); // it only resolves
      clearTimeout(this.ageTimer);
      this.ageTimer = setTimeout(() => this.rotate(ws), this.opts.maxConnectionAgeMs);
      this.armSilence(ws);
      this.settleStart();
    });
    ws.on('message', (data, isBinary) => {
      if (ws === this.current) this.armSilence(ws);
      if (this.handleFrame(isBinary ? null : rawText(data)) && !validSeen) {
        validSeen = true;
        this.attempt = 0;
      }
    });
    ws.on('ping', () => this.log.debug('ping from Binance answered'));
    ws.on('error', (err) => this.log.warn({ err: err.message, url: this.url }, 'Binance book stream error'));
    ws.on('close', (code, reason) => {
      if (ws === this.current) {
        this.current = undefined;
        clearTimeout(this.silenceTimer);
        clearTimeout(this.ageTimer);
        this.log.warn({ code, reason: reason.toString() }, 'Binance book stream closed');
        this.scheduleDial();
      } else if (ws === this.dialling) {
        this.dialling = undefined;
        this.log.warn({ code }, 'Binance book stream could not connect');
        this.scheduleDial();
      }
    });
  }

  private settleStart(err?: Error): void {
    const pending = this.pendingStart;
    if (!pending) return;
    this.pendingStart = undefined;
    clearTimeout(pending.timer);
    if (err) pending.reject(err);
    else pending.resolve();
  }

  /** Opens a fresh link alongside `ws`, which closes once the new one is up. */
  private rotate(ws: WebSocket): void {
    if (!this.running || ws !== this.current || this.dialling || this.reconnectTimer) return;
    this.log.info({ maxConnectionAgeMs: this.opts.maxConnectionAgeMs }, 'replacing Binance book stream before its 24 h limit');
    this.dial();
  }

  private scheduleDial(): void {
    if (!this.running || this.reconnectTimer || this.dialling) return;
    const { backoffInitialMs, backoffMaxMs } = this.opts;
    const delayMs = backoffMs(++this.attempt, { baseMs: backoffInitialMs, maxMs: backoffMaxMs, jitter: 'equal' }, this.random);
    this.log.info({ delayMs, attempt: this.attempt }, 'Binance book stream reconnecting');
    this.reconnectTimer = setTimeout(() => this.dial(), delayMs);
  }

  private armSilence(ws: WebSocket): void {
    clearTimeout(this.silenceTimer);
    this.silenceTimer = setTimeout(() => {
      if (ws !== this.current) return;
      this.log.warn({ silenceTimeoutMs: this.opts.silenceTimeoutMs }, 'Binance book stream silent; redialling');
      ws.terminate();
    }, this.opts.silenceTimeoutMs);
  }

  /** Turns one frame into a book for the listeners; true when it was a valid book. */
  private handleFrame(text: string | null): boolean {
    const arrival = this.now();
    const reason = text === null ? 'binary frame' : this.toBook(text, arrival);
    if (typeof reason !== 'string') {
      this.listeners.emit(reason);
      return true;
    }
    this.drops.record({ reason, frame: text?.slice(0, 200) });
    return false;
  }

  private toBook(text: string, ts: number): BookSnapshot | string {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return 'not JSON';
    }
    const frame = v.safeParse(DepthFrame, json);
    if (!frame.success) return `not a depth frame: ${frame.issues[0]?.message ?? 'invalid'}`;
    const { stream, data } = frame.output;
    const symbol = this.symbols.find((s) => stream === `${s.toLowerCase()}@depth20@100ms`);
    if (!symbol) return `unexpected stream ${stream}`;
    const last = this.lastUpdateId.get(symbol);
    if (last !== undefined && data.lastUpdateId < last) return `out-of-order update ${data.lastUpdateId} < ${last}`;
    // a partial book lists live levels only; an empty size would still be no liquidity
    const live = (levels: [string, string][]) => levels.filter(([, qty]) => !ZERO.test(qty));
    const book = checkBook({ symbol, bids: live(data.bids), asks: live(data.asks), ts });
    if (!book.ok) return book.reason;
    this.lastUpdateId.set(symbol, data.lastUpdateId);
    return book.value;
  }
}

const rawText = (data: WebSocket.RawData): string =>
  Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data).toString('utf8');

/** Closes politely, and cuts the socket if the peer does not answer the close within 2 s. */
function closeSocket(ws: WebSocket): Promise<void> {
  if (ws.readyState === WebSocket.CLOSED) return Promise.resolve();
  return new Promise((resolve) => {
    const cut = setTimeout(() => ws.terminate(), 2_000);
    ws.once('close', () => {
      clearTimeout(cut);
      resolve();
    });
    if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
    else ws.close(1000, 'client closing');
  });
}
