/**
 * Replaying the event log to a socket that connected with `since` (docs/gateway-api.md#resume):
 * the resume message, the snapshot when it is not newer than `since`, then the logged events
 * already published, paced by the socket's backlog, until the socket has caught up and joins the
 * topic in the same synchronous step (see event-stream.ts).
 */
import type { Logger } from '../../../kernel/log.ts';
import type { EventLog, LoggedEvent, Sequenced } from '../../../adapters/store/event-log/port.ts';
import type { WebSocket } from 'uWebSockets.js';
import { TOPIC, type ResumeMessage, type SocketState } from './types.ts';

/** What a replay reads from the stream. */
export interface ReplaySource<E extends LoggedEvent> {
  log: EventLog<E>;
  logger: Logger;
  /** events read from the log per replay step */
  pageSize: number;
  /** replay waits for `drain` above this many buffered bytes */
  replayHighWater: number;
  /** the highest seq published live (read at every step: it moves while a replay waits) */
  lastPublished(): number;
  /** the current price event, if any */
  snapshot(): Sequenced<E> | undefined;
}

/** Sends the resume message, then the replay from `since` (or from the start of what is held when it cannot be recovered). */
export async function resume<E extends LoggedEvent>(src: ReplaySource<E>, ws: WebSocket<SocketState>, state: SocketState): Promise<void> {
  const since = state.since ?? 0;
  const [epoch, first] = await Promise.all([src.log.epoch(), src.log.firstSeq()]);
  if (!state.open) return;
  const last = src.lastPublished();
  const sameEpoch = state.epoch === undefined || state.epoch === epoch;
  const recovered = sameEpoch && since <= last && since >= first - 1;
  ws.send(JSON.stringify({ type: 'resume', recovered, epoch, seq: last } satisfies ResumeMessage));
  // another epoch, or a log restarted (memory): everything held is new to the client
  if (!sameEpoch || since > last) state.since = 0;
  const snapshot = src.snapshot();
  if (snapshot && snapshot.seq <= (state.since ?? 0)) ws.send(JSON.stringify(snapshot));
  await replay(src, ws, state);
}

/** Resolves on the next `drain` below the high-water mark, or on close. */
function drained(state: SocketState): Promise<void> {
  return new Promise<void>((resolve) => {
    state.drained = () => {
      state.drained = undefined;
      resolve();
    };
  });
}

async function replay<E extends LoggedEvent>(src: ReplaySource<E>, ws: WebSocket<SocketState>, state: SocketState): Promise<void> {
  let cursor = state.since ?? 0;
  for (;;) {
    if (!state.open) return;
    if (cursor >= src.lastPublished()) {
      // Caught up: join the topic in this same synchronous step (see event-stream.ts).
      ws.subscribe(TOPIC);
      state.live = true;
      return;
    }
    const page = await src.log.readSince(cursor, src.pageSize);
    if (!state.open) return;
    const published = page.filter((e) => e.seq <= src.lastPublished());
    if (published.length === 0) {
      src.logger.warn({ cursor, lastPublished: src.lastPublished() }, 'event log holds nothing after the cursor; going live');
      cursor = src.lastPublished();
      continue;
    }
    // Send while the socket's backlog stays under the high-water mark; otherwise wait for drain.
    let i = 0;
    while (i < published.length) {
      if (!state.open) return;
      ws.cork(() => {
        while (i < published.length && ws.getBufferedAmount() <= src.replayHighWater) {
          const e = published[i++] as Sequenced<E>;
          ws.send(JSON.stringify(e));
          cursor = e.seq;
        }
      });
      if (state.open && ws.getBufferedAmount() > src.replayHighWater) await drained(state);
    }
  }
}
