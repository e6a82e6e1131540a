/**
 * The shapes of the WebSocket event stream (docs/gateway-api.md#events): its paths and topic, its
 * tuning, what each socket carries, the broadcast side the runtime uses, the resume message
 * (docs/gateway-api.md#resume) and a page of history.
 */
import type { Logger } from '../../../kernel/log.ts';
import type { AppendOptions, LoggedEvent, Sequenced } from '../../../adapters/store/event-log/port.ts';

/** Paths of the stream (docs/gateway-api.md#path-rules: `GET /ws` under the API base; also bare, like GET routes). */
export const EVENT_STREAM_PATHS = ['/api/ws', '/ws'] as const;
/** The uWS topic of live sockets (`events/<shard>` when the fan-out has several shards). */
export const TOPIC = 'events';

/** Close code of a socket told to come back later (RFC 6455 "Try Again Later"), its reason carrying `retry-after-ms=<n>` (docs/gateway-api.md#resume). */
export const RETRY_CLOSE_CODE = 1013;

/**
 * The close reason of a socket told to come back: a hint of `baseMs`, jittered to 0.5-1.5x so a
 * herd does not come back at once, and `since=<seq>`, the last seq the socket was sent (or knew
 * absent), to reconnect with: a replay cut half way resumes where it stopped, never from the start
 * again (docs/gateway-api.md#resume).
 */
export function retryReason(baseMs: number, since: number): string {
  return `try again later; retry-after-ms=${Math.round(baseMs * (0.5 + Math.random()))}; since=${since}`;
}

/** How resumes are paced (docs/architecture.md#resumes-from-memory); defaults in brackets. */
export interface ResumeTuning {
  /** a replaying socket waits while it has more than this many bytes buffered [64 KiB] */
  socketBudgetBytes: number;
  /** ms of replay work per turn of the event loop at least; more when the rest of the loop took longer since the last slice [4] */
  sliceMs: number;
  /** ms of replay work per turn at most [50] */
  maxSliceMs: number;
  /** a replay of at most this many events, all in the ring, is sent when the socket opens [64] */
  inlineEvents: number;
  /** events one socket is sent per turn before the next socket's turn [256] */
  eventsPerStep: number;
  /** how often a socket waiting for its buffer to drain is looked at again, ms [10] */
  blockedPollMs: number;
  /** reads of an old page a socket waits through before it is closed with a retry hint [4] */
  olderReadAttempts: number;
  /** the retry hint given in a 1013 close, ms (jittered) [2000] */
  retryAfterMs: number;
  /** how long a socket resuming from a seq this gateway has not published yet (its follower of a shared log is behind) waits for it before it is closed with a retry hint, ms [10000] */
  aheadWaitMs: number;
}

/** Told what resumes do (metrics). */
export interface ResumeObserver {
  /** a resuming socket caught up and went live, `ms` after it opened */
  resumed(ms: number): void;
  /** an upgrade with `since` was answered 503 (too many sockets resuming) */
  refused(): void;
  /** a resuming socket was closed with 1013 and a retry hint */
  closedForRetry(): void;
  /** an upgrade was answered 503 because the process holds its most sockets */
  full?(): void;
}

/** Tuning of the stream; defaults in brackets. */
export interface EventStreamOptions {
  logger: Logger;
  /** bytes buffered per socket before it is closed as a slow consumer [1 MiB] */
  maxBackpressure?: number;
  /** events read from the log per page of an old replay [500] */
  replayPageSize?: number;
  /** seconds without traffic before uWS closes a socket; pings are sent automatically [120] */
  idleTimeoutSeconds?: number;
  /** how long a delivered event waits for a missing predecessor before the log is read [500] */
  gapFillMs?: number;
  /** newest events held in memory for resumes [20000] */
  resumeRingEvents?: number;
  /** pages of older events kept once read [64] */
  olderPages?: number;
  /** sockets resuming at once before an upgrade with `since` is answered 503 [30000] */
  maxResuming?: number;
  /** how often the log's epoch and oldest seq are read again, ms [2000] */
  factsRefreshMs?: number;
  /** WebSockets held at most: past it an upgrade is answered 503 with Retry-After and `onFull` is told [no limit] */
  maxSockets?: number;
  /** told when the stream holds `maxSockets` (true) and again once it is back below it by a margin (false) */
  onFull?: (full: boolean) => void;
  /** topics live sockets are spread over, published one per turn of the event loop [16] (docs/architecture.md#fan-out-in-shards) */
  fanoutShards?: number;
  /** pacing of replays */
  resume?: Partial<ResumeTuning>;
  /** told what resumes do */
  observer?: ResumeObserver;
}

/** What each socket carries. */
export interface SocketState {
  /** seq the client asked to resume after, if any */
  since: number | undefined;
  /** epoch the client's `since` belongs to, if it said */
  epoch: string | undefined;
  open: boolean;
  live: boolean;
  /** the last seq sent to (or known absent for) a resuming socket */
  cursor: number;
  /** performance.now() when the socket opened */
  openedAt: number;
  /** failed reads of an old page in a row */
  pageFailures: number;
  /** its replay has begun and not finished */
  resuming: boolean;
  /** the fan-out shard it joins */
  shard: number;
}

/** The broadcast side used by the runtime (prices, bets). */
export interface EventBroadcaster<E extends LoggedEvent> {
  /** Logs `event` (assigning its seq) and publishes it to every live socket; resolves with the sequenced event. */
  broadcast<T extends E>(event: T, options?: AppendOptions): Promise<Sequenced<T>>;
}

/** The `resume` message: the first message after a connect with `since` (its schema is the runtime's). */
export type { ResumeMessage } from '../../../runtime/gateway/events/schemas.ts';

/** A page of history (`GET /api/events`). */
export interface EventPage<E extends LoggedEvent> {
  epoch: string;
  events: Array<Sequenced<E>>;
}
