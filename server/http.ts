/**
 * Small HTTP building blocks over uWebSockets.js shared by both services: JSON replies
 * (corked, CORS-open), size-limited body reading, one error type that carries a status.
 */
import uws from 'uWebSockets.js';
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';

export type { HttpRequest, HttpResponse, TemplatedApp };

/** An error that becomes an HTTP reply: `status` and a JSON body (`{error, ...}` or `{error, message}`). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(typeof body.message === 'string' ? body.message : String(body.error), options);
    this.name = 'HttpError';
  }
}

const STATUS_TEXT: Record<number, string> = {
  200: '200 OK',
  201: '201 Created',
  204: '204 No Content',
  400: '400 Bad Request',
  403: '403 Forbidden',
  404: '404 Not Found',
  405: '405 Method Not Allowed',
  409: '409 Conflict',
  413: '413 Payload Too Large',
  415: '415 Unsupported Media Type',
  422: '422 Unprocessable Entity',
  500: '500 Internal Server Error',
  503: '503 Service Unavailable',
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
}

export function reply(res: HttpResponse): Reply {
  const r: Reply = { res, aborted: false };
  res.onAborted(() => {
    r.aborted = true;
  });
  return r;
}

/** Sends `body` as JSON (or nothing for 204), with CORS headers, corked. Safe to call after abort. */
export function sendJson(r: Reply, status: number, body?: unknown, headers: ReadonlyArray<readonly [string, string]> = []): void {
  if (r.aborted) return;
  const payload = body === undefined || status === 204 ? undefined : JSON.stringify(body);
  r.res.cork(() => {
    r.res.writeStatus(statusLine(status));
    for (const [k, v] of CORS_HEADERS) r.res.writeHeader(k, v);
    for (const [k, v] of headers) r.res.writeHeader(k, v);
    if (payload === undefined) {
      r.res.endWithoutBody();
    } else {
      r.res.writeHeader('Content-Type', 'application/json');
      r.res.end(payload);
    }
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

/** Parses bytes as JSON; `undefined` for an empty body; throws `invalid` for malformed JSON. */
export function parseJson(bytes: Buffer, invalid: () => HttpError): unknown {
  if (bytes.length === 0) return undefined;
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch (cause) {
    const err = invalid();
    throw new HttpError(err.status, err.body, { cause });
  }
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
