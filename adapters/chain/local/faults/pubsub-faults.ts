/**
 * The fault profile's PubSub faults (docs/operations.md#a-fault-profile): providers cut WebSocket
 * connections without a close frame, and a client must reconnect and subscribe again (what it
 * missed meanwhile is gone); and a connection can stay open while nothing comes through it any
 * more (an idle NAT or load-balancer entry dropped, a node that stops sending), which only a
 * client that pings notices. Every `pubsubCutMs`, every open PubSub socket is cut; every
 * `pubsubSilentMs`, every open one goes silent.
 */
import type { FaultCounters } from './counters.ts';

/** What the PubSub server does to its open sockets; each returns how many it touched. */
export interface PubSubSockets {
  /** closes every open socket without a close frame */
  cutAll(): number;
  /** leaves every open socket open and sends nothing more on it */
  silenceAll(): number;
}

/** Applies the cuts and silences of the profile to `sockets`; returns how to stop. */
export function disturbPubSub(profile: { pubsubCutMs: number; pubsubSilentMs: number }, sockets: PubSubSockets, counters: FaultCounters): () => void {
  const timers: NodeJS.Timeout[] = [];
  const every = (ms: number, act: () => void) => {
    if (ms <= 0) return;
    const timer = setInterval(act, ms);
    timer.unref();
    timers.push(timer);
  };
  every(profile.pubsubCutMs, () => (counters.cuts += sockets.cutAll()));
  every(profile.pubsubSilentMs, () => (counters.silenced += sockets.silenceAll()));
  return () => timers.forEach((t) => clearInterval(t));
}
