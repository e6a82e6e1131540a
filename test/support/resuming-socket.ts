/**
 * A WebSocket client of the gateway's event stream that resumes like a well-behaved client
 * (docs/gateway-api.md#resume): when its socket closes it connects again (to the same gateway,
 * or another one) with `?since=<last seq seen>`, until stopped. It keeps every event once per
 * connection, so a test can check the whole sequence it saw for gaps and duplicates.
 *
 * @example
 *   const client = resumingSocket(() => node.ws);
 *   ...
 *   client.stop();
 *   gapsAndRepeats(client.events); // []
 */
import { collect, type Collector } from './ws-collector.ts';
import { setTimeout as sleep } from 'node:timers/promises';

/** A resuming client. */
export interface ResumingSocket {
  /** every event received, in order, the connect snapshot of the first connection left out */
  events: Array<Record<string, unknown>>;
  /** how many times it connected again with `since` */
  resumes: number;
  /** the seq of the last event seen, 0 before any */
  lastSeq(): number;
  stop(): void;
}

/** Connects to `url()` and keeps resuming until stopped. */
export function resumingSocket(url: () => string): ResumingSocket {
  const events: Array<Record<string, unknown>> = [];
  let stopped = false;
  let current: Collector | null = null;
  const state: ResumingSocket = {
    events,
    resumes: 0,
    lastSeq: () => (events.length === 0 ? 0 : (events[events.length - 1]!.seq as number)),
    stop() {
      stopped = true;
      current?.close();
    },
  };
  (async () => {
    let first = true;
    while (!stopped) {
      const since = state.lastSeq();
      try {
        const c = await collect(first ? url() : `${url()}?since=${since}`);
        current = c;
        if (!first) state.resumes++;
        let dropSnapshot = first;
        let taken = 0;
        const take = () => {
          for (; taken < c.messages.length; taken++) {
            const m = c.messages[taken]!;
            if (dropSnapshot) {
              dropSnapshot = false; // the first connection's current price: seen again live
              if (m.type === 'price' && events.length === 0) continue;
            }
            if (!first && (m.seq as number) <= since) continue; // the connect snapshot, older than the resume point
            events.push(m);
          }
        };
        c.socket.on('message', take);
        first = false;
        await c.closed;
        take();
      } catch {
        // the gateway is away: try again
      }
      current = null;
      if (!stopped) await sleep(200);
    }
  })().catch(() => undefined); // every failure is caught inside: a connect that fails is tried again
  return state;
}

/** Where `events`' seqs are not consecutive: each as `a -> b`; empty when the sequence has no gap and no repeat. */
export function gapsAndRepeats(events: ReadonlyArray<Record<string, unknown>>): string[] {
  const out: string[] = [];
  for (let i = 1; i < events.length; i++) {
    const a = events[i - 1]!.seq as number;
    const b = events[i]!.seq as number;
    if (b !== a + 1) out.push(`${a} -> ${b}`);
  }
  return out;
}
