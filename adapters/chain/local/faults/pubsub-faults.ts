/**
 * The fault profile's PubSub cuts (docs/operations.md#a-fault-profile): providers cut WebSocket
 * connections without a close frame, and a client must reconnect and subscribe again (what it
 * missed meanwhile is gone). Every `pubsubCutMs`, every open PubSub socket is cut.
 */
import type { FaultCounters } from './counters.ts';

/** Cuts every socket `cutAll` knows of every `everyMs`; returns how to stop. */
export function cutPubSubEvery(everyMs: number, cutAll: () => number, counters: FaultCounters): () => void {
  const timer = setInterval(() => {
    counters.cuts += cutAll();
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
