/**
 * A small JSON-RPC client for the chain adapter. Every way a chain can fail to answer —
 * refused connection, timeout, an HTTP error, a body that is not JSON-RPC, a result of the
 * wrong shape — becomes `ChainUnavailable` (HTTP 500 upstream); a well-formed JSON-RPC
 * error object becomes `RpcError` (a kind of ChainUnavailable), which the sender inspects
 * (preflight failures carry the program's error code).
 */
import http from 'node:http';
import https from 'node:https';
import * as v from 'valibot';
import { ChainUnavailable } from './port.ts';
import { setTimeout as sleep } from 'node:timers/promises';

/** Carries one JSON-RPC request body to a chain and returns the parsed JSON answer. */
export interface JsonRpcTransport {
  readonly description: string;
  exchange(body: object): Promise<unknown>;
  /** releases pooled connections (optional) */
  close?(): void;
}

/**
 * A JSON-RPC error object returned by the chain. It is a `ChainUnavailable` (the chain did
 * not do what was asked) unless a caller recognises it, as the sender does for preflight.
 */
export class RpcError extends ChainUnavailable {
  constructor(
    readonly code: number,
    message: string,
    readonly data: unknown,
  ) {
    super(`chain answered JSON-RPC error ${code}: ${message}`);
    this.name = 'RpcError';
  }
}

/**
 * The request never reached the chain (connection refused, no route, no such host): nothing was
 * delivered, so nothing can have been done; a transaction sent this way did not leave.
 */
export class ChainUnreachable extends ChainUnavailable {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ChainUnreachable';
  }
}

/** Connection errors that mean the request was never delivered. */
const NOT_DELIVERED = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * The chain's RPC answered HTTP 429 (a provider's rate limit): nothing was done; the same call
 * may be made again once `retryAfterMs` has passed (its Retry-After, else a second).
 */
export class RateLimited extends ChainUnavailable {
  constructor(
    url: string,
    readonly retryAfterMs: number,
  ) {
    super(`chain at ${url} answered HTTP 429 (rate limited; retry after ${retryAfterMs} ms)`);
    this.name = 'RateLimited';
  }
}

/** Retry-After in ms: whole seconds or an HTTP date; a second when absent or unreadable. */
export function retryAfterMs(header: string | undefined, now = Date.now()): number {
  if (header === undefined) return 1000;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.max(100, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? 1000 : Math.max(100, at - now);
}

/**
 * JSON-RPC over HTTP POST on a keep-alive connection pool (`node:http`: a fraction of the CPU
 * `fetch` costs per call), with a per-request timeout. A request that meets a reset on a reused
 * idle connection (the server closed it as we picked it) is sent once more on a fresh one;
 * resending is safe for every method the adapter uses (a transaction is identified by its signature).
 */
export class HttpTransport implements JsonRpcTransport {
  private readonly target: URL;
  private readonly agent: http.Agent;
  private readonly request: typeof http.request;

  constructor(
    readonly url: string,
    private readonly timeoutMs = 10_000,
    maxSockets = 64,
  ) {
    this.target = new URL(url);
    const secure = this.target.protocol === 'https:';
    this.agent = secure ? new https.Agent({ keepAlive: true, maxSockets }) : new http.Agent({ keepAlive: true, maxSockets });
    this.request = secure ? https.request : http.request;
  }

  get description(): string {
    return this.url;
  }

  exchange(body: object): Promise<unknown> {
    return this.post(JSON.stringify(body), true);
  }

  /** Closes the pooled connections. */
  close(): void {
    this.agent.destroy();
  }

  private post(payload: string, mayRetry: boolean): Promise<unknown> {
    const url = this.url;
    return new Promise((resolve, reject) => {
      let timedOut = false;
      const req = this.request(
        {
          agent: this.agent,
          method: 'POST',
          protocol: this.target.protocol,
          hostname: this.target.hostname,
          port: this.target.port,
          path: `${this.target.pathname}${this.target.search}`,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', (err) => {
            clearTimeout(timer);
            reject(new ChainUnavailable(`chain at ${url} broke off its answer`, { cause: err }));
          });
          res.on('end', () => {
            clearTimeout(timer);
            const status = res.statusCode ?? 0;
            const retry = res.headers['retry-after'];
            if (status === 429) return reject(new RateLimited(url, retryAfterMs(Array.isArray(retry) ? retry[0] : retry)));
            if (status < 200 || status >= 300) return reject(new ChainUnavailable(`chain at ${url} answered HTTP ${status}`));
            try {
              resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown);
            } catch (err) {
              reject(new ChainUnavailable(`chain at ${url} answered something that is not JSON`, { cause: err }));
            }
          });
        },
      );
      const timer = setTimeout(() => {
        timedOut = true;
        req.destroy();
      }, this.timeoutMs);
      req.on('error', (err: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        if (!timedOut && mayRetry && req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) {
          this.post(payload, false).then(resolve, reject);
          return;
        }
        if (!timedOut && err.code !== undefined && NOT_DELIVERED.has(err.code))
          return reject(new ChainUnreachable(`chain at ${url} unreachable (${err.code})`, { cause: err }));
        reject(new ChainUnavailable(timedOut ? `chain at ${url} did not answer within ${this.timeoutMs} ms` : `chain at ${url} unreachable`, { cause: err }));
      });
      req.end(payload);
    });
  }
}

const Envelope = v.union([
  v.object({ jsonrpc: v.literal('2.0'), id: v.unknown(), result: v.unknown() }),
  v.object({ jsonrpc: v.literal('2.0'), id: v.unknown(), error: v.object({ code: v.number(), message: v.string(), data: v.optional(v.unknown()) }) }),
]);

/** Typed JSON-RPC calls with answer validation. */
export class RpcClient {
  private nextId = 1;

  constructor(
    readonly transport: JsonRpcTransport,
    /** how long a call may wait out 429s in all [3000 ms] */
    private readonly rateLimitWaitMs = 3_000,
  ) {}

  /**
   * Calls `method` and validates its result with `schema`. A 429 is waited out (its Retry-After)
   * and the call made again, up to `rateLimitWaitMs` in all; `sendTransaction` is not: the landing
   * engine paces its own sends.
   */
  async call<T>(method: string, params: unknown[], schema: v.GenericSchema<unknown, T>): Promise<T> {
    const deadline = Date.now() + this.rateLimitWaitMs;
    for (;;) {
      try {
        return await this.callOnce(method, params, schema);
      } catch (err) {
        if (!(err instanceof RateLimited) || method === 'sendTransaction' || Date.now() + err.retryAfterMs > deadline) throw err;
        await sleep(err.retryAfterMs);
      }
    }
  }

  private async callOnce<T>(method: string, params: unknown[], schema: v.GenericSchema<unknown, T>): Promise<T> {
    const id = this.nextId++;
    const raw = await this.transport.exchange({ jsonrpc: '2.0', id, method, params });
    const env = v.safeParse(Envelope, raw);
    if (!env.success || (env.output.id !== id && env.output.id !== null)) {
      throw new ChainUnavailable(`chain at ${this.transport.description} answered ${method} with something that is not JSON-RPC`);
    }
    if ('error' in env.output) {
      const e = env.output.error;
      // some providers say "too many requests" as a JSON-RPC error rather than HTTP 429
      if (e.code === 429 || e.code === -32429) throw new RateLimited(this.transport.description, 1000);
      throw new RpcError(e.code, e.message, e.data);
    }
    const result = v.safeParse(schema, env.output.result);
    if (!result.success) {
      throw new ChainUnavailable(
        `chain at ${this.transport.description} answered ${method} with an unexpected result (${result.issues[0]?.message ?? 'invalid'})`,
      );
    }
    return result.output;
  }
}
