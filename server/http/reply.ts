/**
 * Writing answers over uWebSockets.js for every HTTP surface (docs/architecture.md#http-kit): JSON and
 * text replies, corked and CORS-open (every answer allows any origin; a preflight also names the
 * methods and headers), HEAD with the headers without the body, one error type that
 * carries a status and headers, and a JSON text made once and sent as it is. Status lines and the
 * fixed headers are encoded once at load: a reply writes bytes, it converts no string.
 */
import type { HttpResponse } from 'uWebSockets.js';

/** An error that becomes an HTTP reply: `status` and a JSON body (`{error, ...}` or `{error, message}`). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    options?: { cause?: unknown; headers?: ReadonlyArray<readonly [string, string]>; quiet?: boolean },
  ) {
    super(typeof body.message === 'string' ? body.message : String(body.error), options);
    this.name = 'HttpError';
    this.headers = options?.headers ?? [];
    this.quiet = options?.quiet ?? false;
  }

  /** a 5xx that is a normal answer under load (a placement shed): counted by the surface, not logged one by one */
  readonly quiet: boolean;

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
  401: '401 Unauthorized',
  403: '403 Forbidden',
  404: '404 Not Found',
  405: '405 Method Not Allowed',
  409: '409 Conflict',
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

const encoded = (text: string): Buffer => Buffer.from(text, 'latin1');
const STATUS_BYTES = new Map(Object.entries(STATUS_TEXT).map(([code, text]) => [Number(code), encoded(text)]));
const statusBytes = (status: number): Buffer | string => STATUS_BYTES.get(status) ?? statusLine(status);

export const CORS_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['Access-Control-Allow-Origin', '*'],
  ['Access-Control-Allow-Methods', 'GET, POST, PUT, DELETE, OPTIONS'],
  // Idempotency-Key for orders; the rest are what Solana Actions clients send (docs/gateway-api.md#bet-with-your-wallet)
  [
    'Access-Control-Allow-Headers',
    'Content-Type, Authorization, Idempotency-Key, Content-Encoding, Accept-Encoding, X-Accept-Action-Version, X-Accept-Blockchain-Ids',
  ],
  ['Access-Control-Max-Age', '86400'],
];
const CORS_BYTES = CORS_HEADERS.map(([k, v]) => [encoded(k), encoded(v)] as const);
// an answer that is not a preflight needs only the origin (the other three are read from preflights)
const ALLOW_ORIGIN = encoded(CORS_HEADERS[0]?.[0] ?? '');
const ANY_ORIGIN = encoded(CORS_HEADERS[0]?.[1] ?? '');
const CONTENT_TYPE = encoded('Content-Type');
const CONTENT_LENGTH = encoded('Content-Length');
const JSON_TYPE = encoded('application/json');

/** Tracks whether the client went away, so late replies are dropped instead of throwing. */
export interface Reply {
  readonly res: HttpResponse;
  aborted: boolean;
  /** a HEAD request: headers as for GET, no body */
  readonly head: boolean;
  /** answered inside the uWS handler, where uWS corks by itself */
  readonly now?: boolean;
}

/** Wraps `res` for an answer given later (call synchronously in the handler); `method` upper case. */
export function reply(res: HttpResponse, method = ''): Reply {
  const r: Reply = { res, aborted: false, head: method.toUpperCase() === 'HEAD' };
  res.onAborted(() => {
    r.aborted = true;
  });
  return r;
}

/** Wraps `res` for an answer given before the uWS handler returns (no abort can come first). */
export const replyNow = (res: HttpResponse, head: boolean): Reply => ({ res, aborted: false, head, now: true });

/** Runs `write` corked, unless uWS corks already (inside its handler). */
const corked = (r: Reply, write: () => void): void => {
  if (r.now) write();
  else r.res.cork(write);
};

/** JSON text made once and sent as it is (a cached answer). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** The status line (uWS writes `200 OK` itself when none is written) and the origin header of an answer. */
const writeHead = (res: HttpResponse, status: number): void => {
  if (status !== 200) res.writeStatus(statusBytes(status));
  res.writeHeader(ALLOW_ORIGIN, ANY_ORIGIN);
};

/** Writes headers then the body (none for HEAD, with its length). */
function finish(r: Reply, contentType: Buffer | string, payload: string, close: boolean): void {
  r.res.writeHeader(CONTENT_TYPE, contentType);
  if (r.head) {
    // endWithoutBody(length) would close the connection after the reply: keep-alive clients then
    // lose their next request. The length is written as a header instead.
    r.res.writeHeader(CONTENT_LENGTH, String(Buffer.byteLength(payload)));
    r.res.endWithoutBody();
  } else r.res.end(payload, close);
}

/** Sends `body` as JSON (or nothing for 204), with CORS headers, corked; a 413 also closes the connection. Safe to call after abort. */
export function sendJson(r: Reply, status: number, body?: unknown, headers: ReadonlyArray<readonly [string, string]> = []): void {
  if (r.aborted) return;
  const payload = body === undefined || status === 204 ? undefined : body instanceof RawJson ? body.text : JSON.stringify(body);
  corked(r, () => {
    writeHead(r.res, status);
    for (const [k, v] of headers) r.res.writeHeader(k, v);
    if (payload === undefined) r.res.endWithoutBody();
    // a 413 closes the connection: the client may still be sending the rest of the body
    else finish(r, JSON_TYPE, payload, status === 413);
  });
  r.aborted = true;
}

/** Sends a text body (e.g. the Prometheus exposition format) with CORS headers, corked. Safe to call after abort. */
export function sendText(r: Reply, status: number, body: string, contentType: string): void {
  if (r.aborted) return;
  corked(r, () => {
    writeHead(r.res, status);
    finish(r, contentType, body, false);
  });
  r.aborted = true;
}

/** Answers a CORS preflight. */
export function sendPreflight(res: HttpResponse): void {
  res.cork(() => {
    res.writeStatus(statusBytes(204));
    for (const [k, v] of CORS_BYTES) res.writeHeader(k, v);
    res.endWithoutBody();
  });
}
