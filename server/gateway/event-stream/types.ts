/**
 * The shapes of the WebSocket event stream (docs/gateway-api.md#events): its paths and topic, its
 * tuning, what each socket carries, the broadcast side the runtime uses, the resume message
 * (docs/gateway-api.md#resume) and a page of history.
 */
import type { Logger } from '../../../kernel/log.ts';
import type { AppendOptions, LoggedEvent, Sequenced } from '../../../adapters/store/event-log/port.ts';

/** Paths of the stream (docs/gateway-api.md#path-rules: `GET /ws` under the API base; also bare, like GET routes). */
export const EVENT_STREAM_PATHS = ['/api/ws', '/ws'] as const;
/** The uWS topic every live socket joins. */
export const TOPIC = 'events';

/** Tuning of the stream; defaults in brackets. */
export interface EventStreamOptions {
  logger: Logger;
  /** bytes buffered per socket before it is closed as a slow consumer [1 MiB] */
  maxBackpressure?: number;
  /** replay waits for `drain` above this many buffered bytes [min(256 KiB, maxBackpressure / 4)]; keep it below maxBackpressure minus the largest event */
  replayHighWater?: number;
  /** events read from the log per replay step [500] */
  replayPageSize?: number;
  /** seconds without traffic before uWS closes a socket; pings are sent automatically [120] */
  idleTimeoutSeconds?: number;
  /** how long a delivered event waits for a missing predecessor before the log is read [500] */
  gapFillMs?: number;
}

/** What each socket carries. */
export interface SocketState {
  /** seq the client asked to resume after, if any */
  since: number | undefined;
  /** epoch the client's `since` belongs to, if it said */
  epoch: string | undefined;
  open: boolean;
  live: boolean;
  /** resolves a replay waiting for backpressure to drain */
  drained: (() => void) | undefined;
}

/** The broadcast side used by the runtime (prices, bets). */
export interface EventBroadcaster<E extends LoggedEvent> {
  /** Logs `event` (assigning its seq) and publishes it to every live socket; resolves with the sequenced event. */
  broadcast<T extends E>(event: T, options?: AppendOptions): Promise<Sequenced<T>>;
}

/** The `resume` message: the first message after a connect with `since`. */
export interface ResumeMessage {
  type: 'resume';
  recovered: boolean;
  epoch: string;
  seq: number;
}

/** A page of history (`GET /api/events`). */
export interface EventPage<E extends LoggedEvent> {
  epoch: string;
  events: Array<Sequenced<E>>;
}
