/** A PriceFeed driven by the test: `emit` delivers a tick to every listener synchronously. */
import type { PriceFeed, PriceTick, Unsubscribe } from '../../adapters/feed/port.ts';

/** A feed whose ticks come from `emit`; counts start/stop calls. */
export interface ManualPriceFeed extends PriceFeed {
  emit(tick: { price: string | number; ts: number; symbol?: string; signed?: PriceTick['signed'] }): void;
  readonly started: number;
  readonly stopped: number;
}

/** Creates a manual feed. */
export function manualPriceFeed(): ManualPriceFeed {
  const listeners = new Set<(tick: PriceTick) => void>();
  const feed = {
    started: 0,
    stopped: 0,
    async start() {
      feed.started++;
    },
    async stop() {
      feed.stopped++;
    },
    onTick(listener: (tick: PriceTick) => void): Unsubscribe {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    emit(tick: { price: string | number; ts: number; symbol?: string; signed?: PriceTick['signed'] }) {
      // Malformed ticks are passed on as-is on purpose: the ingestion must drop them.
      const t = { symbol: 'solusdt', ...tick } as unknown as PriceTick;
      for (const l of listeners) l(t);
    },
  };
  return feed;
}
