/**
 * A light HTTP client for load (benchmarks, bursts in tests): node:http, over keep-alive
 * connections unless asked for a connection per request (fetch costs several times more CPU per
 * request, and the load generator shares the machine with what it measures).
 */
import { Agent, request } from 'node:http';

/** An answer: status, parsed JSON body (null when the body is not JSON) and its Retry-After, if any. */
export interface Answer {
  status: number;
  body: Record<string, unknown> | null;
  retryAfter: string | null;
}

/** Keep-alive connections to one server, at most `sockets` at once. */
export class JsonClient {
  private readonly agent: Agent;

  constructor(
    private readonly base: string,
    sockets = 64,
    /** a request not answered by then fails (0: no limit) */
    private readonly timeoutMs = 0,
    /** false: a connection per request (a burst of clients, each its own) */
    keepAlive = true,
  ) {
    this.agent = new Agent({ keepAlive, maxSockets: sockets });
  }

  /** Sends `method path` with a JSON body (if any). */
  call(method: string, path: string, body?: unknown): Promise<Answer> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        `${this.base}${path}`,
        {
          method,
          agent: this.agent,
          headers: payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            let parsed: Record<string, unknown> | null = null;
            try {
              parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
            } catch {
              parsed = null;
            }
            const retry = res.headers['retry-after'];
            resolve({ status: res.statusCode ?? 0, body: parsed, retryAfter: typeof retry === 'string' ? retry : null });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      if (this.timeoutMs > 0) req.setTimeout(this.timeoutMs, () => req.destroy(new Error(`${method} ${path}: no answer within ${this.timeoutMs} ms`)));
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
