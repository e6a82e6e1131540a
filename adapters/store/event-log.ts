/**
 * Port: the gateway's event log. Every broadcast event (spec section 6) is appended here first
 * and gets an increasing `seq`; a WebSocket client that reconnects with `?since=<seq>` is sent
 * what it missed from here. The log is bounded (oldest events drop out), so a client that was
 * away too long gets only what is still held.
 * Adapters: `event-log-memory.ts` (ring buffer, embedded default), `event-log-redis.ts` (stream).
 */

/** Any event: a JSON object with a `type`. */
export interface LoggedEvent {
  type: string;
}

/** An event as stored and broadcast: the original fields plus its `seq` (1, 2, 3, ...). */
export type Sequenced<E extends LoggedEvent> = E & { seq: number };

/** Default number of events kept (about 80 min of 2 ticks/s plus bets). */
export const DEFAULT_EVENT_CAPACITY = 10_000;

/** Default page size of `readSince`. */
export const DEFAULT_READ_LIMIT = 500;

export interface EventLog<E extends LoggedEvent> {
  /** Assigns the next seq (atomic across processes in Redis), stores the event, returns it with its seq. */
  append(event: E): Promise<Sequenced<E>>;
  /** Events with seq > `since`, oldest first, at most `limit` (default 500). */
  readSince(since: number, limit?: number): Promise<Array<Sequenced<E>>>;
  /** The highest seq assigned so far (0 when none). */
  lastSeq(): Promise<number>;
}

/** Checks a stored record is an event object; adapters use it when reading back. */
export function asLoggedEvent(raw: unknown): LoggedEvent {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || typeof (raw as { type?: unknown }).type !== 'string') {
    throw new Error(`event log record is not an event object: ${JSON.stringify(raw)}`);
  }
  return raw as LoggedEvent;
}
