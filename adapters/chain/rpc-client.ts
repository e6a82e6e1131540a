/**
 * A small JSON-RPC client for the chain adapter. Every way a chain can fail to answer —
 * refused connection, timeout, an HTTP error, a body that is not JSON-RPC, a result of the
 * wrong shape — becomes `ChainUnavailable` (HTTP 500 upstream); a well-formed JSON-RPC
 * error object becomes `RpcError` (a kind of ChainUnavailable), which the sender inspects
 * (preflight failures carry the program's error code).
 */
import * as v from 'valibot';
import { ChainUnavailable } from './port.ts';

/** Carries one JSON-RPC request body to a chain and returns the parsed JSON answer. */
export interface JsonRpcTransport {
  readonly description: string;
  exchange(body: object): Promise<unknown>;
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

/** JSON-RPC over HTTP POST with a per-request timeout. */
export class HttpTransport implements JsonRpcTransport {
  constructor(
    readonly url: string,
    private readonly timeoutMs = 10_000,
  ) {}

  get description(): string {
    return this.url;
  }

  async exchange(body: object): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
      throw new ChainUnavailable(timedOut ? `chain at ${this.url} did not answer within ${this.timeoutMs} ms` : `chain at ${this.url} unreachable`, { cause: err });
    }
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      throw new ChainUnavailable(`chain at ${this.url} broke off its answer`, { cause: err });
    }
    if (!res.ok) throw new ChainUnavailable(`chain at ${this.url} answered HTTP ${res.status}`);
    try {
      return JSON.parse(text) as unknown;
    } catch (err) {
      throw new ChainUnavailable(`chain at ${this.url} answered something that is not JSON`, { cause: err });
    }
  }
}

const Envelope = v.union([
  v.object({ jsonrpc: v.literal('2.0'), id: v.unknown(), result: v.unknown() }),
  v.object({ jsonrpc: v.literal('2.0'), id: v.unknown(), error: v.object({ code: v.number(), message: v.string(), data: v.optional(v.unknown()) }) }),
]);

/** Typed JSON-RPC calls with answer validation. */
export class RpcClient {
  private nextId = 1;

  constructor(readonly transport: JsonRpcTransport) {}

  /** Calls `method` and validates its result with `schema`. */
  async call<T>(method: string, params: unknown[], schema: v.GenericSchema<unknown, T>): Promise<T> {
    const id = this.nextId++;
    const raw = await this.transport.exchange({ jsonrpc: '2.0', id, method, params });
    const env = v.safeParse(Envelope, raw);
    if (!env.success || (env.output.id !== id && env.output.id !== null)) {
      throw new ChainUnavailable(`chain at ${this.transport.description} answered ${method} with something that is not JSON-RPC`);
    }
    if ('error' in env.output) {
      const e = env.output.error;
      throw new RpcError(e.code, e.message, e.data);
    }
    const result = v.safeParse(schema, env.output.result);
    if (!result.success) {
      throw new ChainUnavailable(`chain at ${this.transport.description} answered ${method} with an unexpected result (${result.issues[0]?.message ?? 'invalid'})`);
    }
    return result.output;
  }
}
