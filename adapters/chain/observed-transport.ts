/**
 * A JSON-RPC transport that reports every call's method, duration and failure to an observer
 * (the gateway's chain RPC metrics), without changing what the call returns or throws.
 *
 * @example
 *   const transport = observedTransport(new HttpTransport(url), (method, seconds, failed) => metrics.rpc(method, seconds, failed));
 */
import type { JsonRpcTransport } from './rpc-client.ts';

/** Told about each call: the JSON-RPC method (`batch` for a batch), seconds taken, and whether it failed. */
export type RpcObserver = (method: string, seconds: number, failed: boolean) => void;

const methodOf = (body: object): string => {
  if (Array.isArray(body)) return 'batch';
  const method = (body as { method?: unknown }).method;
  return typeof method === 'string' ? method : 'unknown';
};

/** A JSON-RPC error object in the answer counts as a failure, like a thrown transport error. */
const isErrorAnswer = (raw: unknown): boolean => typeof raw === 'object' && raw !== null && 'error' in raw && (raw as { error?: unknown }).error != null;

/** Wraps `inner`, reporting each call to `observe`. */
export function observedTransport(inner: JsonRpcTransport, observe: RpcObserver): JsonRpcTransport {
  const observed: JsonRpcTransport = {
    get description() {
      return inner.description;
    },
    async exchange(body) {
      const started = performance.now();
      const method = methodOf(body);
      try {
        const raw = await inner.exchange(body);
        observe(method, (performance.now() - started) / 1000, isErrorAnswer(raw));
        return raw;
      } catch (err) {
        observe(method, (performance.now() - started) / 1000, true);
        throw err;
      }
    },
  };
  if (inner.close) observed.close = () => inner.close?.();
  return observed;
}
