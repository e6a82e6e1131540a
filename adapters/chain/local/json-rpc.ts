/**
 * JSON-RPC 2.0 envelope handling for the local chain: parse, validate, dispatch (single or
 * batch) and answer every failure with a standard error object — a bad request never
 * crashes the chain (-32700 parse, -32600 invalid request, -32601 method not found,
 * -32602 invalid params, -32603 internal).
 */
import * as v from 'valibot';
import type { Logger } from '../../../kernel/log.ts';
import { RPC_CODES, RpcFailure } from './rpc-failure.ts';

/** A method takes the raw `params` array and returns the JSON `result` (throws RpcFailure to refuse). */
export type RpcMethod = (params: unknown[]) => unknown; // may return a Promise

type Id = string | number | null;

const Request = v.object({
  jsonrpc: v.literal('2.0'),
  id: v.optional(v.union([v.string(), v.number(), v.null()])),
  method: v.string(),
  params: v.optional(v.union([v.array(v.unknown()), v.record(v.string(), v.unknown())])),
});

function failure(id: Id, code: number, message: string, data?: unknown): object {
  return { jsonrpc: '2.0', error: data === undefined ? { code, message } : { code, message, data }, id };
}

/** Dispatches JSON-RPC requests to a method table. */
export class JsonRpcDispatcher {
  constructor(
    private readonly methods: Record<string, RpcMethod>,
    private readonly log: Logger,
  ) {}

  /** Answers a request body (text) with a response body (text). */
  async handleText(body: string): Promise<string> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return JSON.stringify(failure(null, RPC_CODES.parse, 'Parse error'));
    }
    return JSON.stringify(await this.handleValue(parsed));
  }

  /** Answers one parsed request, or a batch of them. */
  async handleValue(parsed: unknown): Promise<object> {
    if (Array.isArray(parsed)) {
      if (parsed.length === 0) return failure(null, RPC_CODES.invalidRequest, 'Invalid request');
      return Promise.all(parsed.map((one) => this.handleOne(one)));
    }
    return this.handleOne(parsed);
  }

  private async handleOne(raw: unknown): Promise<object> {
    const req = v.safeParse(Request, raw);
    if (!req.success) {
      const id = typeof raw === 'object' && raw !== null && 'id' in raw ? (raw as { id: unknown }).id : null;
      return failure(typeof id === 'string' || typeof id === 'number' ? id : null, RPC_CODES.invalidRequest, 'Invalid request');
    }
    const { id = null, method, params } = req.output;
    const fn = Object.hasOwn(this.methods, method) ? this.methods[method] : undefined;
    if (!fn) return failure(id, RPC_CODES.methodNotFound, 'Method not found');
    if (params !== undefined && !Array.isArray(params)) return failure(id, RPC_CODES.invalidParams, 'Invalid params: expected an array');
    try {
      return { jsonrpc: '2.0', result: await fn(params ?? []), id };
    } catch (err) {
      if (err instanceof RpcFailure) return failure(id, err.code, err.message, err.data);
      this.log.error({ err, method }, 'local chain method failed');
      return failure(id, RPC_CODES.internal, `Internal error: ${(err as Error).message}`);
    }
  }
}

/** Validates `params` against a valibot tuple schema, answering -32602 naming the problem. */
export function parseParams<T>(schema: v.GenericSchema<unknown, T>, params: unknown[]): T {
  const res = v.safeParse(schema, params);
  if (res.success) return res.output;
  const issue = res.issues[0];
  const where = issue?.path?.map((p) => String(p.key)).join('.') ?? '';
  throw new RpcFailure(RPC_CODES.invalidParams, `Invalid params: ${where ? `${where}: ` : ''}${issue?.message ?? 'invalid'}`);
}
