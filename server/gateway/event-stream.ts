/**
 * The WebSocket event stream (docs/gateway-api.md#events) at `/api/ws` and `/ws`.
 *
 * Every broadcast event is first appended to the event log, which gives it its `seq`, then
 * published to the uWS topics of its fan-out shards (no loop over sockets: `event-stream/fanout.ts`). Events written to the log
 * by others (a bet commit appends its events with its snapshot) come in through `deliver`; live
 * publication is strictly in seq order whatever order the writes answer in. Price events are logged and
 * carry a seq like bet events, so "every event carries an increasing seq" holds and a replay is
 * exactly what a connected client saw; the log is bounded (oldest events drop out).
 *
 * On connect the client gets the current price snapshot (when one exists), then live events.
 * With `?since=<seq>` it first gets the events with seq > since, then live, with no gap and no
 * duplicate: replay sends only events already published (seq <= lastPublished) straight to the
 * socket, and the socket joins the topic in the same synchronous step in which it has caught up
 * with lastPublished. uWS delivers a publish only to sockets subscribed when it was made, so
 * nothing published before the join arrives twice, and nothing after it is missed.
 * With `since`, the snapshot is sent only when its seq <= since (a newer price comes in the replay).
 *
 * Resume (docs/gateway-api.md#resume): the first message after a connect with `since` is
 * `{"type":"resume","recovered","epoch","seq"}`; `recovered` is false when `since` is older than
 * the oldest event held, newer than the last one, or of another epoch (`?epoch=` as the client
 * last saw it): the client then reloads its state over REST. `seq` is the last seq published
 * when the replay starts.
 *
 * A herd of resumes (docs/architecture.md#resumes-from-memory): the newest events are held in
 * memory as the text that was published (`event-stream/recent-events.ts`), so a resume inside
 * them reads nothing from the log; older ones come from pages of the log read once for every
 * socket that needs them (`older-pages.ts`); the resume message says what the log held at the
 * last look (`log-facts.ts`); a short replay is sent at once, longer ones are worked in slices
 * that leave the event loop to live events, HTTP and new connections (`resumes.ts`). Past `maxResuming` sockets resuming at once, an
 * upgrade with `since` is answered 503 with Retry-After.
 *
 * Several gateways (docs/architecture.md#the-event-stream): with a shared log (JetStream) every
 * event, whichever gateway appended it, comes in through `deliver` from the log's live feed.
 *
 * Slow consumers: uWS buffers at most `maxBackpressure` bytes per socket; a publish beyond that
 * closes the socket (`closeOnBackpressureLimit`) rather than silently dropping an event, and the
 * client reconnects with `since`. Live sockets have no drain callback: it would be a call into
 * JavaScript per socket per tick.
 *
 * Limits: a `since` older than the log's oldest event replays from the oldest held (the gap is
 * unavoidable); a `since` above the last seq (a memory log restarted) replays everything held.
 * Events appended by other processes sharing a Redis log appear in replays but not live here.
 *
 * This file holds the stream's ordering and sockets; its shapes are in event-stream/types.ts.
 */
import type { EventLog, LoggedEvent, Sequenced, AppendOptions } from '../../adapters/store/event-log/port.ts';
import { DEFAULT_READ_LIMIT } from '../../adapters/store/event-log/port.ts';
import type { TemplatedApp } from 'uWebSockets.js';
import { reply, sendJson } from '../http/reply.ts';
import type { WebSocket } from 'uWebSockets.js';
import { Fanout } from './event-stream/fanout.ts';
import { InOrder } from './event-stream/in-order.ts';
import { LogFacts } from './event-stream/log-facts.ts';
import { OlderPages } from './event-stream/older-pages.ts';
import { RecentEvents } from './event-stream/recent-events.ts';
import { Resumes } from './event-stream/resumes.ts';
import {
  EVENT_STREAM_PATHS,
  TOPIC,
  type EventBroadcaster,
  type EventPage,
  type EventStreamOptions,
  type ResumeTuning,
  type SocketState,
} from './event-stream/types.ts';

export { type EventPage, type EventStreamOptions } from './event-stream/types.ts';

/** Default pacing of replays (see `ResumeTuning`). */
const RESUME_TUNING: ResumeTuning = {
  socketBudgetBytes: 64 * 1024,
  sliceMs: 4,
  maxSliceMs: 50,
  inlineEvents: 64,
  eventsPerStep: 256,
  blockedPollMs: 10,
  olderReadAttempts: 4,
  retryAfterMs: 2_000,
  aheadWaitMs: 10_000,
};
/** Events read per step while the ring is filled at start. */
const FILL_PAGE = 1_000;
/** How long the ring's fill at start may take before the rest is left to old-page reads. */
const FILL_DEADLINE_MS = 10_000;

/** The event stream: broadcast side plus socket handling; attach it to an app with `attach`. */
export class EventStream<E extends LoggedEvent> implements EventBroadcaster<E> {
  private readonly order: InOrder<E>;
  private app: TemplatedApp | undefined;
  private snapshot: () => Sequenced<E> | undefined = () => undefined;
  private readonly sockets = new Set<WebSocket<SocketState>>();
  private readonly maxBackpressure: number;
  private readonly maxResuming: number;
  private readonly maxSockets: number;
  private full = false;
  private readonly recent: RecentEvents;
  private readonly older: OlderPages<E>;
  private readonly facts: LogFacts<E>;
  private readonly resumes: Resumes<E>;
  private readonly fanout: Fanout;

  constructor(
    private readonly log: EventLog<E>,
    private readonly options: EventStreamOptions,
  ) {
    this.maxBackpressure = options.maxBackpressure ?? 1024 * 1024;
    this.maxResuming = options.maxResuming ?? 30_000;
    this.maxSockets = options.maxSockets ?? Number.POSITIVE_INFINITY;
    const pageSize = options.replayPageSize ?? DEFAULT_READ_LIMIT;
    this.recent = new RecentEvents(options.resumeRingEvents ?? 20_000);
    this.older = new OlderPages<E>({ read: (since, limit) => log.readSince(since, limit), size: pageSize, maxPages: options.olderPages ?? 64 });
    this.facts = new LogFacts(log, options.logger, options.factsRefreshMs ?? 2_000);
    this.facts.onEpochChange = (from, to) => {
      options.logger.warn({ from, to }, 'the event log has another epoch (its history was lost): resumes no longer use what was held before');
      this.forgetHeld();
    };
    this.fanout = new Fanout(options.fanoutShards ?? 16, (topic, text) => this.app?.publish(topic, text), TOPIC);
    this.order = new InOrder<E>({
      read: (since, limit) => log.readSince(since, limit),
      publish: (e) => {
        const text = JSON.stringify(e);
        this.recent.push(e.seq, text);
        this.fanout.publish(e.seq, text);
      },
      logger: options.logger,
      gapFillMs: options.gapFillMs ?? 500,
      pageSize,
    });
    this.resumes = new Resumes<E>({
      recent: this.recent,
      older: this.older,
      facts: this.facts,
      lastPublished: (shard) => this.fanout.publishedBy(shard),
      topicOf: (shard) => this.fanout.topicOf(shard),
      lastInOrder: () => this.order.last,
      shared: log.shared === true,
      snapshot: () => this.snapshot(),
      logger: options.logger,
      // a replay stays well under the slow-consumer bound, so an event sent over the budget cannot cross it
      tuning: { ...RESUME_TUNING, socketBudgetBytes: Math.min(RESUME_TUNING.socketBudgetBytes, Math.floor(this.maxBackpressure / 4)), ...options.resume },
      observer: options.observer,
    });
  }

  /**
   * Reads the log's facts and last seq (a restarted process resumes numbering and replay from
   * there), then fills the ring of recent events from the log, so the first herd of resumes after a
   * restart reads nothing more (bounded by FILL_DEADLINE_MS; what is not filled is read in pages).
   */
  async start(): Promise<void> {
    await this.facts.start();
    this.order.last = Math.max(this.order.last, await this.log.lastSeq());
    this.fanout.startAt(this.order.last);
    const started = performance.now();
    const last = this.order.last;
    let cursor = Math.max(this.facts.firstSeq - 1, last - this.recent.capacity, this.recent.last ?? 0);
    try {
      while (cursor < last && performance.now() - started < FILL_DEADLINE_MS) {
        const page = await this.log.readSince(cursor, Math.min(FILL_PAGE, last - cursor));
        if (page.length === 0) break;
        for (const e of page) if (e.seq <= last) this.recent.push(e.seq, JSON.stringify(e));
        cursor = (page[page.length - 1] as Sequenced<E>).seq;
      }
    } catch (err) {
      this.options.logger.warn(
        { err: err instanceof Error ? err.message : err },
        'the ring of recent events could not be filled from the log; resumes read it in pages',
      );
    }
    this.options.logger.info(
      { held: this.recent.size, first: this.recent.first, last, ms: Math.round(performance.now() - started) },
      'recent events held in memory for resumes',
    );
  }

  /** Sets where the connect-time snapshot comes from (the current price event). */
  setSnapshotSource(source: () => Sequenced<E> | undefined): void {
    this.snapshot = source;
  }

  /** Number of open sockets. */
  get connections(): number {
    return this.sockets.size;
  }

  /** Sockets resuming now (their replay not finished). */
  get resuming(): number {
    return this.resumes.waiting;
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
      this.fanout.startAt(sequenced.seq - 1);
      this.forgetHeld();
      this.facts.refresh().catch(() => undefined); // its new epoch: kept fresh by the timer if this read fails
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

  /** History after `since` (at most `limit` events, only those already published here) with the log's epoch; from memory when the ring holds it. */
  async page(since: number, limit: number): Promise<EventPage<E>> {
    const at = this.recent.positionAfter(since);
    if (at >= 0 && this.facts.epoch !== '') {
      const events: Array<Sequenced<E>> = [];
      for (let p = at; p < this.recent.size && events.length < limit; p++) events.push(JSON.parse(this.recent.textAt(p)) as Sequenced<E>);
      return { epoch: this.facts.epoch, events };
    }
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
          if (this.sockets.size >= this.maxSockets) {
            this.options.observer?.full?.();
            const retryAfter = String(1 + Math.floor(Math.random() * 5));
            return sendJson(r, 503, { error: 'this gateway holds as many sockets as it can; connect again after Retry-After seconds, or to another gateway' }, [
              ['Retry-After', retryAfter],
            ]);
          }
          if (sinceText !== '' && this.resumes.waiting >= this.maxResuming) {
            this.options.observer?.refused();
            // jittered, so the refused part of a herd does not come back in one instant
            const retryAfter = String(1 + Math.floor(Math.random() * 3));
            return sendJson(r, 503, { error: 'too many sockets are resuming on this gateway; connect again after Retry-After seconds' }, [
              ['Retry-After', retryAfter],
            ]);
          }
          const state: SocketState = {
            since: sinceText === '' ? undefined : Number(sinceText),
            epoch: epochText === '' ? undefined : epochText,
            open: true,
            live: false,
            cursor: 0,
            openedAt: performance.now(),
            pageFailures: 0,
            resuming: false,
            shard: this.fanout.assign(),
          };
          res.cork(() => res.upgrade(state, key, protocol, extensions, context));
        },
        open: (ws) => this.onOpen(ws),
        close: (ws) => {
          ws.getUserData().open = false;
          this.resumes.forget(ws);
          this.sockets.delete(ws);
          this.checkFull();
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
    this.fanout.stop();
    this.resumes.stop();
    this.facts.stop();
    for (const ws of [...this.sockets]) ws.end(code, reason);
  }

  /** What was held from the log's previous history is of no use to a resume any more. */
  private forgetHeld(): void {
    this.recent.clear();
    this.older.clear();
  }

  /** Tells `onFull` when the stream reaches `maxSockets`, and when it is back below by a margin (a few hundred, so it does not flap). */
  private checkFull(): void {
    const margin = Math.min(256, Math.ceil(this.maxSockets / 20));
    const full = this.full ? this.sockets.size > this.maxSockets - margin : this.sockets.size >= this.maxSockets;
    if (full === this.full) return;
    this.full = full;
    this.options.logger.warn(
      { sockets: this.sockets.size, maxSockets: this.maxSockets },
      full
        ? 'this gateway holds its most sockets: new connections are refused until some close'
        : 'sockets below their limit again: new connections are accepted',
    );
    this.options.onFull?.(full);
  }

  private onOpen(ws: WebSocket<SocketState>): void {
    this.sockets.add(ws);
    this.checkFull();
    const state = ws.getUserData();
    if (state.since !== undefined) return this.resumes.begin(ws);
    const snapshot = this.snapshot();
    // a snapshot not published to this socket's shard yet comes live: sent now it would come twice
    if (snapshot && snapshot.seq <= this.fanout.publishedBy(state.shard)) ws.send(JSON.stringify(snapshot));
    ws.subscribe(this.fanout.topicOf(state.shard));
    state.live = true;
  }
}
