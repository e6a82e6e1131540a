/**
 * Small HTTP building blocks over uWebSockets.js shared by both services: JSON replies
 * (corked, CORS-open; HEAD gets the headers without the body), size-limited body reading that
 * refuses strings which are not well-formed Unicode, one error type that carries a status (and
 * headers such as Retry-After), and an exclusive listen that names a busy port.
 */
import uws from 'uWebSockets.js';
import { PortInUse } from '../kernel/errors.ts';
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';

export type { HttpRequest, HttpResponse, TemplatedApp };

/** An error that becomes an HTTP reply: `status` and a JSON body (`{error, ...}` or `{error, message}`). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    options?: { cause?: unknown; headers?: ReadonlyArray<readonly [string, string]> },
  ) {
    super(typeof body.message === 'string' ? body.message : String(body.error), options);
    this.name = 'HttpError';
    this.headers = options?.headers ?? [];
  }

  /** extra response headers (e.g. Retry-After) */
  readonly headers: ReadonlyArray<readonly [string, string]>;
}

/** Seconds a client should wait before retrying after a dependency outage (Retry-After). */
export const OUTAGE_RETRY_AFTER_SECONDS = 2;

/** The Retry-After header of an outage answer. */
export const retryAfter = (seconds = OUTAGE_RETRY_AFTER_SECONDS): [string, string] => ['Retry-After', String(seconds)];

const STATUS_TEXT: Record<number, string> = {
  200: '200 OK',
  201: '201 Created',
  204: '204 No Content',
  304: '304 Not Modified',
  400: '400 Bad Request',
  403: '403 Forbidden',
  404: '404 Not Found',
  405: '405 Method Not Allowed',
  409: '409 Conflict',
  401: '401 Unauthorized',
  413: '413 Payload Too Large',
  415: '415 Unsupported Media Type',
  422: '422 Unprocessable Entity',
  426: '426 Upgrade Required',
  431: '431 Request Header Fields Too Large',
  500: '500 Internal Server Error',
  501: '501 Not Implemented',
  502: '502 Bad Gateway',
  503: '503 Service Unavailable',
  504: '504 Gateway Timeout',
};

export const statusLine = (status: number): string => STATUS_TEXT[status] ?? `${status} Status`;

export const CORS_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['Access-Control-Allow-Origin', '*'],
  ['Access-Control-Allow-Methods', 'GET, POST, PUT, DELETE, OPTIONS'],
  ['Access-Control-Allow-Headers', 'Content-Type, Authorization, Idempotency-Key'],
  ['Access-Control-Max-Age', '86400'],
];

/** Tracks whether the client went away, so late replies are dropped instead of throwing. */
export interface Reply {
  readonly res: HttpResponse;
  aborted: boolean;
  /** a HEAD request: headers as for GET, no body */
  readonly head: boolean;
}

/** Wraps `res` (call synchronously in the handler); `method` as uWS reports it (any case). */
export function reply(res: HttpResponse, method = ''): Reply {
  const r: Reply = { res, aborted: false, head: method.toUpperCase() === 'HEAD' };
  res.onAborted(() => {
    r.aborted = true;
  });
  return r;
}

/** JSON text made once and sent as it is (a cached answer). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** Sends `body` as JSON (or nothing for 204), with CORS headers, corked; a 413 also closes the connection. Safe to call after abort. */
export function sendJson(r: Reply, status: number, body?: unknown, headers: ReadonlyArray<readonly [string, string]> = []): void {
  if (r.aborted) return;
  const payload = body === undefined || status === 204 ? undefined : body instanceof RawJson ? body.text : JSON.stringify(body);
  r.res.cork(() => {
    r.res.writeStatus(statusLine(status));
    for (const [k, v] of CORS_HEADERS) r.res.writeHeader(k, v);
    for (const [k, v] of headers) r.res.writeHeader(k, v);
    if (payload === undefined) {
      r.res.endWithoutBody();
    } else if (r.head) {
      // endWithoutBody(length) would close the connection after the reply: keep-alive clients then
      // lose their next request. The length is written as a header instead.
      r.res.writeHeader('Content-Type', 'application/json');
      r.res.writeHeader('Content-Length', String(Buffer.byteLength(payload)));
      r.res.endWithoutBody();
    } else {
      r.res.writeHeader('Content-Type', 'application/json');
      // a 413 closes the connection: the client may still be sending the rest of the body
      r.res.end(payload, status === 413);
    }
  });
  r.aborted = true;
}

/** Sends a text body (e.g. the Prometheus exposition format) with CORS headers, corked. Safe to call after abort. */
export function sendText(r: Reply, status: number, body: string, contentType: string): void {
  if (r.aborted) return;
  r.res.cork(() => {
    r.res.writeStatus(statusLine(status));
    for (const [k, v] of CORS_HEADERS) r.res.writeHeader(k, v);
    r.res.writeHeader('Content-Type', contentType);
    if (r.head) {
      r.res.writeHeader('Content-Length', String(Buffer.byteLength(body)));
      r.res.endWithoutBody();
    } else r.res.end(body);
  });
  r.aborted = true;
}

/** Answers a CORS preflight. */
export function sendPreflight(res: HttpResponse): void {
  res.cork(() => {
    res.writeStatus(statusLine(204));
    for (const [k, v] of CORS_HEADERS) res.writeHeader(k, v);
    res.endWithoutBody();
  });
}

/**
 * Reads the whole body, refusing more than `limit` bytes with 413. Must be called
 * synchronously inside the uWS handler (before any await). Resolves with the raw bytes.
 */
export function readBody(r: Reply, limit = 64 * 1024): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    r.res.onData((chunk, isLast) => {
      if (size < 0) return;
      size += chunk.byteLength;
      if (size > limit) {
        size = -1;
        reject(new HttpError(413, { error: 'PAYLOAD_TOO_LARGE', message: `body larger than ${limit} bytes` }));
        return;
      }
      chunks.push(Buffer.from(chunk.slice(0)));
      if (isLast) resolve(Buffer.concat(chunks));
    });
  });
}

/** Whether every string in `value` (object keys too) is well-formed Unicode (no lone surrogate). */
export function wellFormed(value: unknown): boolean {
  if (typeof value === 'string') return value.isWellFormed();
  if (Array.isArray(value)) return value.every(wellFormed);
  if (typeof value === 'object' && value !== null) return Object.entries(value).every(([k, v]) => k.isWellFormed() && wellFormed(v));
  return true;
}

/** Why a body was refused although it parsed: a `\ud800`-style escape without its pair. */
export const NOT_WELL_FORMED = 'strings must be well-formed Unicode (a \\uD800-\\uDFFF escape without its pair is not)';

/**
 * Parses bytes as JSON; `undefined` for an empty body; throws `invalid(reason)` for malformed
 * JSON and for strings that are not well-formed Unicode (lone surrogates): no store or script
 * downstream can take them.
 */
export function parseJson(bytes: Buffer, invalid: (reason?: string) => HttpError): unknown {
  if (bytes.length === 0) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8')) as unknown;
  } catch (cause) {
    const err = invalid();
    throw new HttpError(err.status, err.body, { cause });
  }
  if (!wellFormed(parsed)) throw invalid(NOT_WELL_FORMED);
  return parsed;
}

/** uWS's ListenOptions.LIBUS_LISTEN_EXCLUSIVE_PORT. */
const LIBUS_LISTEN_EXCLUSIVE_PORT = 1;

/**
 * Listens on `host:port` exclusively (no SO_REUSEPORT: a second process on the same port would
 * otherwise silently share its traffic); rejects with PortInUse. Port 0 picks a free port.
 */
export function listenExclusive(app: TemplatedApp, host: string, port: number): Promise<uws.us_listen_socket> {
  // this build's typings lack the (host, port, options, cb) overload the addon has
  const listen = app.listen.bind(app) as unknown as (h: string, p: number, options: number, cb: (socket: uws.us_listen_socket | false) => void) => void;
  return new Promise((resolve, reject) => {
    listen(host, port, LIBUS_LISTEN_EXCLUSIVE_PORT, (socket) => {
      if (socket) resolve(socket);
      else reject(new PortInUse(host, port));
    });
  });
}

/** Request headers must be read synchronously in the handler; this copies the ones we need. */
export function headersOf(req: HttpRequest, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of names) out[n] = req.getHeader(n);
  return out;
}

/**
 * Refuses to run on uWS's slow JS fallback (the package falls back silently when its native
 * addon does not load). Only the native addon has H3App; the fallback has none.
 */
export function assertNativeUws(): void {
  if (typeof (uws as unknown as { H3App?: unknown }).H3App !== 'function') {
    throw new Error('uWebSockets.js native addon did not load; refusing to start on the slow fallback');
  }
}
