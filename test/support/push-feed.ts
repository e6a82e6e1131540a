/**
 * A book feed the test pushes books into, for an exchange started in the test process.
 *
 * @example
 *   const feed = pushFeed();
 *   const exchange = await startExchange({ feed, ... });
 *   feed.push({ symbol: 'BTCUSDT', bids: [...], asks: [...], ts: Date.now() });
 */
import type { BookFeed, BookSnapshot } from '../../adapters/feed/port.ts';

/** A feed whose books come from `push`. */
export interface PushFeed extends BookFeed {
  push(b: BookSnapshot): void;
}

/** A feed whose books come from `push`; `start` and `stop` do nothing. */
export function pushFeed(): PushFeed {
  const listeners = new Set<(b: BookSnapshot) => void>();
  return {
    start: async () => undefined,
    stop: async () => undefined,
    onBook(l) {
      listeners.add(l);
      return () => void listeners.delete(l);
    },
    push: (b) => listeners.forEach((l) => l(b)),
  };
}
