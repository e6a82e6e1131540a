/**
 * A PubSub connection that reports every subscription asked for and every one dropped, by method
 * (`signatureSubscribe`, `signatureUnsubscribe`, ...), to an observer: the gateway's
 * `gateway_chain_pubsub_requests_total` (docs/operations.md#metrics). What it forwards is unchanged.
 *
 * @example
 *   const pubsub = observedPubSub(new WsPubSub(url, log), (method) => metrics.pubsubRequest(method));
 */
import type { PubSub } from './pubsub.ts';

/** Told of each subscribe and unsubscribe request: the JSON-RPC method. */
export type PubSubObserver = (method: string) => void;

const UNSUBSCRIBE: Record<string, string> = {
  accountSubscribe: 'accountUnsubscribe',
  programSubscribe: 'programUnsubscribe',
  signatureSubscribe: 'signatureUnsubscribe',
};

/** Wraps `inner`, reporting each request to `observe`. */
export function observedPubSub(inner: PubSub, observe: PubSubObserver): PubSub {
  return {
    async subscribe(method, params, onNotify) {
      observe(method);
      const sub = await inner.subscribe(method, params, onNotify);
      return {
        unsubscribe: () => {
          observe(UNSUBSCRIBE[method] ?? `${method}:unsubscribe`);
          sub.unsubscribe();
        },
      };
    },
    onResync: (cb) => inner.onResync(cb),
    status: () => inner.status(),
    statusSince: () => inner.statusSince(),
    close: () => inner.close(),
  };
}
