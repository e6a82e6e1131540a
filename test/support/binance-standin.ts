/**
 * A local stand-in for Binance's public market streams, speaking the documented combined-stream
 * format: `GET /stream?streams=<a>/<b>` upgrades to a WebSocket whose frames are
 * `{"stream": "<name>", "data": {"lastUpdateId", "bids", "asks"}}` for `<symbol>@depth<N>[@100ms]`.
 * It can drop every connection, send raw (malformed) frames and ping clients, so the Binance
 * adapter's reconnects, drops and pongs are tested over real sockets on 127.0.0.1.
 *
 * @example
 *   const binance = await startBinanceStandIn();
 *   const feed = new BinanceBookFeed({ baseUrl: binance.baseUrl });
 *   binance.sendDepth('btcusdt@depth20@100ms');
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { setTimeout as sleep } from 'node:timers/promises';

/** Payload of a partial-book frame. */
export interface Depth {
  lastUpdateId: number;
  bids: [string, string][];
  asks: [string, string][];
}

/** Handle on a running stand-in. */
export interface BinanceStandIn {
  /** `ws://127.0.0.1:<port>`, in place of `wss://stream.binance.com:9443` */
  baseUrl: string;
  /** request paths of the accepted upgrades, in order */
  readonly requests: string[];
  /** links the clients closed themselves: close code (1000 = polite) and links still open right after */
  readonly clientCloses: { code: number; stillOpen: number }[];
  /** connections accepted so far */
  accepted(): number;
  /** connections open now */
  open(): number;
  /** sends one book frame on `stream` to every client subscribed to it; returns the payload */
  sendDepth(stream: string, depth?: Partial<Depth>): Depth;
  /** sends a frame as is to every client */
  sendRaw(frame: string | Buffer, binary?: boolean): void;
  /** sends a book on every subscribed stream every `intervalMs`; returns a function that stops it */
  streamBooks(intervalMs: number): () => void;
  /** cuts every connection without a close handshake */
  dropAll(): void;
  /** pings the newest client and resolves with the payload of its pong */
  ping(payload: string): Promise<string>;
  waitForConnections(n: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const STREAM = /^([a-z0-9]+)@depth(5|10|20)(@(100|1000)ms)?$/;

const BASE_PRICE: Record<string, number> = { btcusdt: 97_000, ethusdt: 3_500, solusdt: 150 };

/** Starts a stand-in on 127.0.0.1, on a free port. */
export async function startBinanceStandIn(): Promise<BinanceStandIn> {
  const http = createServer((_req, res) => {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"code":-1,"msg":"not found"}');
  });
  const wss = new WebSocketServer({ noServer: true });
  const clients = new Map<WebSocket, string[]>();
  const requests: string[] = [];
  const clientCloses: { code: number; stillOpen: number }[] = [];
  const cutByServer = new WeakSet<WebSocket>();
  let accepted = 0;
  let updateId = 1_000;

  const refuse = (socket: Duplex, status: string, msg: string) => {
    socket.end(`HTTP/1.1 ${status}\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n${JSON.stringify({ code: -1, msg })}`);
  };

  http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== '/stream') return refuse(socket, '404 Not Found', 'unknown path');
    const streams = (url.searchParams.get('streams') ?? '').split('/').filter(Boolean);
    if (streams.length === 0 || !streams.every((s) => STREAM.test(s))) return refuse(socket, '400 Bad Request', 'invalid stream name');
    wss.handleUpgrade(req, socket, head, (ws) => {
      accepted++;
      requests.push(req.url ?? '');
      clients.set(ws, streams);
      ws.on('close', (code) => {
        clients.delete(ws);
        if (!cutByServer.has(ws)) clientCloses.push({ code, stillOpen: clients.size });
      });
      ws.on('error', () => undefined);
    });
  });

  const depthFor = (stream: string, over: Partial<Depth>): Depth => {
    const base = BASE_PRICE[stream.split('@')[0] ?? ''] ?? 100;
    const bids: [string, string][] = [];
    const asks: [string, string][] = [];
    for (let i = 0; i < 20; i++) {
      bids.push([(base - 0.01 * (i + 1)).toFixed(2), (1 + i / 10).toFixed(5)]);
      asks.push([(base + 0.01 * i).toFixed(2), (2 + i / 10).toFixed(5)]);
    }
    return { lastUpdateId: ++updateId, bids, asks, ...over };
  };

  const send = (ws: WebSocket, frame: string | Buffer, binary = false) => {
    if (ws.readyState === WebSocket.OPEN) ws.send(frame, { binary });
  };

  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const address = http.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  const standIn: BinanceStandIn = {
    baseUrl: `ws://127.0.0.1:${port}`,
    requests,
    clientCloses,
    accepted: () => accepted,
    open: () => clients.size,
    sendDepth: (stream, over = {}) => {
      const depth = depthFor(stream, over);
      const frame = JSON.stringify({ stream, data: depth });
      for (const [ws, streams] of clients) if (streams.includes(stream)) send(ws, frame);
      return depth;
    },
    sendRaw: (frame, binary = false) => {
      for (const ws of clients.keys()) send(ws, frame, binary);
    },
    streamBooks: (intervalMs) => {
      const timer = setInterval(() => {
        const streams = new Set([...clients.values()].flat());
        for (const stream of streams) standIn.sendDepth(stream);
      }, intervalMs);
      return () => clearInterval(timer);
    },
    dropAll: () => {
      for (const ws of clients.keys()) {
        cutByServer.add(ws);
        ws.terminate();
      }
    },
    ping: (payload) => {
      const ws = [...clients.keys()].at(-1);
      if (!ws) return Promise.reject(new Error('no client to ping'));
      return new Promise((resolve) => {
        ws.once('pong', (data: Buffer) => resolve(data.toString()));
        ws.ping(payload);
      });
    },
    waitForConnections: async (n, timeoutMs = 15_000) => {
      const deadline = Date.now() + timeoutMs;
      while (accepted < n) {
        if (Date.now() > deadline) throw new Error(`stand-in saw ${accepted} connections, wanted ${n}`);
        await sleep(10);
      }
    },
    close: async () => {
      standIn.dropAll();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
  return standIn;
}
