/**
 * Port: the gateway's event log. Every broadcast event (docs/gateway-api.md#events) is appended here first
 * and gets an increasing `seq`; a WebSocket client that reconnects with `?since=<seq>` is sent
 * what it missed from here. The log is bounded (oldest events drop out), so a client that was
 * away too long gets only what is still held.
 * Adapters: `memory.ts` (ring buffer, embedded default), `redis.ts` (stream),
 * `jetstream.ts` (a JetStream stream shared by several gateways).
 *
 * Every log has an `epoch`: a name of its history that changes when the history is lost (a
 * memory log restarted, a store wiped, a stream recreated), so a client resuming with a seq of
 * another epoch is told its state must be reloaded (docs/gateway-api.md#resume).
 */

/** Any event: a JSON object with a `type` (a type alias, not an interface, so an event is also a JSON object with more fields, as the OpenAPI document describes it). */
export type LoggedEvent = { type: string };

/** An event as stored and broadcast: the original fields plus its `seq` (1, 2, 3, ...). */
export type Sequenced<E extends LoggedEvent> = E & { seq: number };

/** Default number of events kept (about 80 min of 2 ticks/s plus bets). */
export const DEFAULT_EVENT_CAPACITY = 10_000;

/** Default page size of `readSince`. */
export const DEFAULT_READ_LIMIT = 500;

/** How an event is appended. */
export interface AppendOptions {
  /** an id naming the event (e.g. bet id + kind): a log that deduplicates stores it once and answers the first seq again */
  dedupId?: string;
}

export interface EventLog<E extends LoggedEvent> {
  /** true when other processes append to this log too and a dedup id may answer an earlier seq (JetStream) */
  readonly shared?: boolean;
  /** Assigns the next seq (atomic across processes in Redis), stores the event, returns it with its seq. */
  append(event: E, options?: AppendOptions): Promise<Sequenced<E>>;
  /** Events with seq > `since`, oldest first, at most `limit` (default 500). */
  readSince(since: number, limit?: number): Promise<Array<Sequenced<E>>>;
  /** The highest seq assigned so far (0 when none). */
  lastSeq(): Promise<number>;
  /** The oldest seq still held; `lastSeq() + 1` when none is held. */
  firstSeq(): Promise<number>;
  /** The name of this log's history (changes when the history is lost). */
  epoch(): Promise<string>;
}

/** Checks a stored record is an event object; adapters use it when reading back. */
export function asLoggedEvent(raw: unknown): LoggedEvent {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || typeof (raw as { type?: unknown }).type !== 'string') {
    throw new Error(`event log record is not an event object: ${JSON.stringify(raw)}`);
  }
  return raw as LoggedEvent;
}
