/**
 * The WebSocket event stream (docs/gateway-api.md#events) at `/api/ws` and `/ws`.
 *
 * Every broadcast event is first appended to the event log, which gives it its `seq`, then
 * published to one uWS topic (fan-out without a loop over sockets). Events written to the log
 * by others (a bet commit appends its events with its snapshot) come in through `deliver`; live
 * publication is strictly in seq order whatever order the writes answer in. Price events are logged and
 * carry a seq like bet events, so "every event carries an increasing seq" holds and a replay is
 * exactly what a connected client saw; the log is bounded (oldest events drop out).
 *
 * On connect the client gets the current price snapshot (when one exists), then live events.
 * With `?since=<seq>` it first gets the logged events with seq > since, then live, with no gap
 * and no duplicate: replay sends only events already published (seq <= lastPublished) straight
 * to the socket, and the socket joins the topic in the same synchronous step in which it has
 * caught up with lastPublished. uWS delivers a publish only to sockets subscribed when it was
 * made, so nothing published before the join arrives twice, and nothing after it is missed.
 * With `since`, the snapshot is sent only when its seq <= since (a newer price comes in the replay).
 *
 * Resume (docs/gateway-api.md#resume): the first message after a connect with `since` is
 * `{"type":"resume","recovered","epoch","seq"}`; `recovered` is false when `since` is older than
 * the oldest event held, newer than the last one, or of another epoch (`?epoch=` as the client
 * last saw it): the client then reloads its state over REST. `seq` is the last seq published
 * when the replay starts.
 *
 * Several gateways (docs/architecture.md#the-event-stream): with a shared log (JetStream) every
 * event, whichever gateway appended it, comes in through `deliver` from the log's live feed.
 *
 * Slow consumers: uWS buffers at most `maxBackpressure` bytes per socket; a publish beyond that
 * closes the socket (`closeOnBackpressureLimit`) rather than silently dropping an event, and the
 * client reconnects with `since`. Replay pauses above `replayHighWater` until `drain`.
 *
 * Limits: a `since` older than the log's oldest event replays from the oldest held (the gap is
 * unavoidable); a `since` above the last seq (a memory log restarted) replays everything held.
 * Events appended by other processes sharing a Redis log appear in replays but not live here.
 *
 * This file holds the stream's ordering and sockets; its shapes are in event-stream/types.ts, the
 * replay of a resuming socket in event-stream/replay.ts.
 */
import type { EventLog, LoggedEvent, Sequenced, AppendOptions } from '../../adapters/store/event-log/port.ts';
import { DEFAULT_READ_LIMIT } from '../../adapters/store/event-log/port.ts';
import type { TemplatedApp } from 'uWebSockets.js';
import { reply, sendJson } from '../http/reply.ts';
import type { WebSocket } from 'uWebSockets.js';
import { InOrder } from './event-stream/in-order.ts';
import { resume, type ReplaySource } from './event-stream/replay.ts';
import { EVENT_STREAM_PATHS, TOPIC, type EventBroadcaster, type EventPage, type EventStreamOptions, type SocketState } from './event-stream/types.ts';

export { EVENT_STREAM_PATHS, type EventBroadcaster, type EventPage, type EventStreamOptions, type ResumeMessage } from './event-stream/types.ts';

/** The event stream: broadcast side plus socket handling; attach it to an app with `attach`. */
export class EventStream<E extends LoggedEvent> implements EventBroadcaster<E> {
  private readonly order: InOrder<E>;
  private app: TemplatedApp | undefined;
  private snapshot: () => Sequenced<E> | undefined = () => undefined;
  private readonly sockets = new Set<WebSocket<SocketState>>();
  private readonly maxBackpressure: number;
  private readonly replayHighWater: number;
  private readonly pageSize: number;
  private readonly replaySource: ReplaySource<E>;

  constructor(
    private readonly log: EventLog<E>,
    private readonly options: EventStreamOptions,
  ) {
    this.maxBackpressure = options.maxBackpressure ?? 1024 * 1024;
    this.replayHighWater = options.replayHighWater ?? Math.min(256 * 1024, Math.floor(this.maxBackpressure / 4));
    this.pageSize = options.replayPageSize ?? DEFAULT_READ_LIMIT;
    this.order = new InOrder<E>({
      read: (since, limit) => log.readSince(since, limit),
      publish: (e) => this.app?.publish(TOPIC, JSON.stringify(e)),
      logger: options.logger,
      gapFillMs: options.gapFillMs ?? 500,
      pageSize: this.pageSize,
    });
    this.replaySource = {
      log,
      logger: options.logger,
      pageSize: this.pageSize,
      replayHighWater: this.replayHighWater,
      lastPublished: () => this.order.last,
      snapshot: () => this.snapshot(),
    };
  }

  /** Reads the log's last seq (a restarted process resumes numbering and replay from there). */
  async start(): Promise<void> {
    this.order.last = Math.max(this.order.last, await this.log.lastSeq());
  }

  /** Sets where the connect-time snapshot comes from (the current price event). */
  setSnapshotSource(source: () => Sequenced<E> | undefined): void {
    this.snapshot = source;
  }

  /** Number of open sockets. */
  get connections(): number {
    return this.sockets.size;
  }

  /** Highest seq published to live sockets by this process. */
  get lastPublishedSeq(): number {
    return this.order.last;
  }

  async broadcast<T extends E>(event: T, options?: AppendOptions): Promise<Sequenced<T>> {
    const sequenced = (await this.log.append(event, options)) as Sequenced<T>;
    // in a shared log a deduplicated append may answer the seq of an event already published (by another gateway)
    if (sequenced.seq <= this.order.last && !this.log.shared) {
      // a fresh append can only get a seq already published when the log started over (its store lost its data)
      this.options.logger.warn({ seq: sequenced.seq, lastPublished: this.order.last }, 'event log numbering started over; live numbering follows it');
      this.order.startOver(sequenced.seq);
    }
    this.deliver([sequenced]);
    return sequenced;
  }

  /**
   * Publishes events already in the log (with their seqs) to live sockets, strictly in seq order
   * (`event-stream/in-order.ts`: a late predecessor is waited for, then read from the log).
   */
  deliver(events: ReadonlyArray<Sequenced<E>>): void {
    this.order.deliver(events);
  }

  /** History after `since` (at most `limit` events, only those already published here) with the log's epoch. */
  async page(since: number, limit: number): Promise<EventPage<E>> {
    const [epoch, events] = await Promise.all([this.log.epoch(), this.log.readSince(since, limit)]);
    return { epoch, events: events.filter((e) => e.seq <= this.order.last) };
  }

  /** Registers the WebSocket routes on `app`. */
  attach(app: TemplatedApp, paths: readonly string[] = EVENT_STREAM_PATHS): void {
    this.app = app;
    for (const path of paths) {
      app.ws<SocketState>(path, {
        maxPayloadLength: 4 * 1024,
        maxBackpressure: this.maxBackpressure,
        // typed as number in this build's .d.ts; the addon reads it as a boolean
        closeOnBackpressureLimit: 1,
        idleTimeout: this.options.idleTimeoutSeconds ?? 120,
        sendPingsAutomatically: true,
        upgrade: (res, req, context) => {
          const r = reply(res);
          const sinceText = req.getQuery('since') ?? '';
          const epochText = req.getQuery('epoch') ?? '';
          const key = req.getHeader('sec-websocket-key');
          const protocol = req.getHeader('sec-websocket-protocol');
          const extensions = req.getHeader('sec-websocket-extensions');
          if (sinceText !== '' && !/^\d{1,15}$/.test(sinceText)) {
            return sendJson(r, 400, { error: 'since must be a non-negative integer (the last seq received)' });
          }
          if (epochText.length > 200) return sendJson(r, 400, { error: 'epoch must be the epoch of the last resume message (at most 200 characters)' });
          const state: SocketState = {
            since: sinceText === '' ? undefined : Number(sinceText),
            epoch: epochText === '' ? undefined : epochText,
            open: true,
            live: false,
            drained: undefined,
          };
          res.cork(() => res.upgrade(state, key, protocol, extensions, context));
        },
        open: (ws) => this.onOpen(ws),
        drain: (ws) => {
          const state = ws.getUserData();
          if (ws.getBufferedAmount() <= this.replayHighWater) state.drained?.();
        },
        close: (ws) => {
          const state = ws.getUserData();
          state.open = false;
          state.drained?.();
          this.sockets.delete(ws);
        },
      });
      // a plain GET (no Upgrade header) reaches here: say what the path needs
      app.get(path, (res) =>
        sendJson(reply(res), 426, { error: `${path} is a WebSocket endpoint: connect with an Upgrade: websocket request` }, [['Upgrade', 'websocket']]),
      );
    }
  }

  /** Closes every socket (shutdown). */
  closeAll(code = 1001, reason = 'server shutting down'): void {
    this.order.stop();
    for (const ws of [...this.sockets]) ws.end(code, reason);
  }

  private onOpen(ws: WebSocket<SocketState>): void {
    this.sockets.add(ws);
    const state = ws.getUserData();
    const snapshot = this.snapshot();
    if (state.since === undefined) {
      // a snapshot not delivered here yet (a shared stream's follower is behind) comes live: sent now it would come twice
      if (snapshot && snapshot.seq <= this.order.last) ws.send(JSON.stringify(snapshot));
      ws.subscribe(TOPIC);
      state.live = true;
      return;
    }
    resume(this.replaySource, ws, state).catch((err: unknown) => {
      this.options.logger.error({ err }, 'event replay failed; closing the socket');
      if (state.open) ws.end(1011, 'replay failed');
    });
  }
}
