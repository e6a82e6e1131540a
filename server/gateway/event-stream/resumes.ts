/**
 * Resuming sockets, served at the rate the process can serve them (docs/gateway-api.md#resume,
 * docs/architecture.md#resumes-from-memory). A socket that connects with `since` gets its resume
 * message at once. A short replay (at most `inlineEvents`, all in the ring) is sent right there
 * and the socket goes live in the same step: after a restart most of a herd missed only a few
 * ticks. A longer one waits its turn in one queue worked in slices, each socket a bounded step at
 * a time, round robin; a slice lasts as long as the rest of the event loop took since the last
 * one (at least `sliceMs`, at most `maxSliceMs`), so replays get about half the process while live
 * ticks, HTTP requests and new connections still run between slices.
 *
 * A step sends from the ring of recent events while the socket's buffer stays under
 * `socketBudgetBytes`; older events come from pages of the log read once for every socket that
 * needs them (`older-pages.ts`). A socket whose buffer is over its budget is set aside and looked at
 * again every `blockedPollMs` (no drain callback: a callback per socket would be paid by every live
 * socket on every tick). Once caught up with the last published seq, the socket joins the topic in
 * the same synchronous step, so nothing is missed and nothing comes twice (see event-stream.ts).
 *
 * A socket whose old events cannot be read (the log keeps failing) is closed with 1013 and a retry
 * hint (`retry-after-ms=<n>`, jittered): it comes back with the same `since`.
 */
import type { WebSocket } from 'uWebSockets.js';
import type { LoggedEvent, Sequenced } from '../../../adapters/store/event-log/port.ts';
import type { Logger } from '../../../kernel/log.ts';
import type { LogFacts } from './log-facts.ts';
import type { OlderPage, OlderPages } from './older-pages.ts';
import type { RecentEvents } from './recent-events.ts';
import { RETRY_CLOSE_CODE, retryReason, type ResumeMessage, type ResumeObserver, type ResumeTuning, type SocketState } from './types.ts';
import { backoffMs, type RetryPolicy } from '../../../kernel/backoff.ts';

/** delays before a socket whose older page failed is read again */
const OLDER_PAGE_RETRY: RetryPolicy = { baseMs: 500, maxMs: 8_000 };

/** What a replay reads from. */
export interface ResumeSource<E extends LoggedEvent> {
  recent: RecentEvents;
  older: OlderPages<E>;
  facts: LogFacts<E>;
  /** the highest seq the socket's shard has published live (read at every step: it moves while a replay waits) */
  lastPublished(shard: number): number;
  /** the topic of a shard */
  topicOf(shard: number): string;
  /** the highest seq put in order for publication (every shard gets there within a few turns) */
  lastInOrder(): number;
  /** the current price event, if any */
  snapshot(): Sequenced<E> | undefined;
  /** the log is shared by several gateways: a `since` above what this one has published is a seq it has not received yet, not a log that started over */
  shared: boolean;
  logger: Logger;
  tuning: ResumeTuning;
  observer?: ResumeObserver | undefined;
}

type Outcome = 'done' | 'more' | 'blocked' | 'parked';

/** The queue of resuming sockets. */
export class Resumes<E extends LoggedEvent> {
  private ready: Array<WebSocket<SocketState>> = [];
  private readyHead = 0;
  private readonly blocked = new Set<WebSocket<SocketState>>();
  private parked = 0;
  private pump: NodeJS.Immediate | null = null;
  private poll: NodeJS.Timeout | null = null;
  private lastWarnAt = 0;
  /** sockets whose replay has begun and not finished (closed ones leave at once) */
  private resuming = 0;
  /** when the last slice ended */
  private sliceEnded = 0;

  constructor(private readonly src: ResumeSource<E>) {}

  /** Sockets resuming now (queued, waiting for their buffer to drain, or for a page of the log). */
  get waiting(): number {
    return this.resuming;
  }

  /** Sends `ws` its resume message and queues its replay. */
  begin(ws: WebSocket<SocketState>): void {
    const state = ws.getUserData();
    const src = this.src;
    const since = state.since ?? 0;
    const last = src.lastInOrder();
    const epoch = src.facts.epoch;
    const sameEpoch = state.epoch === undefined || state.epoch === epoch;
    const held = since >= src.facts.firstSeq - 1 || src.recent.positionAfter(since) >= 0;
    // a shared log's follower here is behind the gateway the client came from: it waits for what it has not received, never replays what the client has
    const ahead = sameEpoch && since > last && src.shared;
    const recovered = sameEpoch && (since <= last || ahead) && held;
    ws.send(JSON.stringify({ type: 'resume', recovered, epoch, seq: last } satisfies ResumeMessage));
    // another epoch, or a log restarted (memory): everything held is new to the client
    state.cursor = !sameEpoch || (since > last && !ahead) ? 0 : since;
    const snapshot = src.snapshot();
    if (snapshot && snapshot.seq <= state.cursor) ws.send(JSON.stringify(snapshot));
    state.resuming = true;
    this.resuming++;
    // a few events, all held in the ring: sent now (uWS corks an open callback), live in this same step
    const at = src.recent.positionAfter(state.cursor);
    if (at >= 0 && src.recent.size - at <= src.tuning.inlineEvents && this.sendSome(ws, state) === 'done') return this.finish(state);
    this.enqueue(ws);
  }

  /** Forgets a closed socket. */
  forget(ws: WebSocket<SocketState>): void {
    this.blocked.delete(ws);
    const state = ws.getUserData();
    if (state.resuming) {
      state.resuming = false;
      this.resuming--;
    }
  }

  /** Stops the timers (shutdown). */
  stop(): void {
    if (this.pump) clearImmediate(this.pump);
    if (this.poll) clearTimeout(this.poll);
    this.pump = null;
    this.poll = null;
  }

  private enqueue(ws: WebSocket<SocketState>): void {
    this.ready.push(ws);
    this.pump ??= setImmediate(() => this.work());
  }

  private work(): void {
    this.pump = null;
    const now = performance.now();
    const { sliceMs, maxSliceMs } = this.src.tuning;
    // as long as the rest of the loop took since the last slice: replays get about half the process
    const until = now + Math.min(maxSliceMs, Math.max(sliceMs, now - this.sliceEnded));
    while (this.readyHead < this.ready.length) {
      const ws = this.ready[this.readyHead++] as WebSocket<SocketState>;
      const state = ws.getUserData();
      if (state.open) {
        const outcome = this.step(ws, state);
        if (outcome === 'more') this.ready.push(ws);
        else if (outcome === 'blocked') this.block(ws);
      }
      if (performance.now() >= until) break;
    }
    if (this.readyHead >= this.ready.length) {
      this.ready = [];
      this.readyHead = 0;
    } else {
      if (this.readyHead > 4096) {
        this.ready = this.ready.slice(this.readyHead);
        this.readyHead = 0;
      }
      this.pump ??= setImmediate(() => this.work());
    }
    this.sliceEnded = performance.now();
  }

  /** A replay ended: the socket is live. */
  private finish(state: SocketState): void {
    if (state.resuming) {
      state.resuming = false;
      this.resuming--;
    }
    this.src.observer?.resumed(performance.now() - state.openedAt);
  }

  private step(ws: WebSocket<SocketState>, state: SocketState): Outcome {
    let outcome = 'more' as Outcome;
    ws.cork(() => {
      outcome = this.sendSome(ws, state);
    });
    if (outcome === 'done') this.finish(state);
    return outcome;
  }

  /** Sends up to `eventsPerStep` events; joins the topic once caught up. */
  private sendSome(ws: WebSocket<SocketState>, state: SocketState): Outcome {
    const { recent, older, facts, tuning } = this.src;
    let sent = 0;
    for (;;) {
      const last = this.src.lastPublished(state.shard);
      // the shard has not yet published what the socket already has: joining now would repeat it; it
      // gets there within a few turns, or once this gateway's follower catches up (looked at again every `blockedPollMs`)
      if (state.cursor > last) return this.waitAhead(ws, state);
      if (state.cursor === last) {
        // caught up: join the shard's topic in this same synchronous step (see event-stream.ts)
        ws.subscribe(this.src.topicOf(state.shard));
        state.live = true;
        return 'done';
      }
      if (sent >= tuning.eventsPerStep) return 'more';
      if (ws.getBufferedAmount() > tuning.socketBudgetBytes) return 'blocked';
      const at = recent.positionAfter(state.cursor);
      if (at >= 0) {
        if (at >= recent.size) {
          // every published event enters the ring: nothing newer held means nothing newer to send
          state.cursor = last;
          continue;
        }
        for (let p = at; p < recent.size && sent < tuning.eventsPerStep; p++) {
          // what the ring holds past the shard's last publication comes live
          if (recent.seqAt(p) > last) break;
          ws.send(recent.textAt(p));
          state.cursor = recent.seqAt(p);
          sent++;
          if (ws.getBufferedAmount() > tuning.socketBudgetBytes) break;
        }
        continue;
      }
      // older than the ring: what the log no longer holds is skipped (the client was told recovered:false)
      if (state.cursor < facts.firstSeq - 1) state.cursor = facts.firstSeq - 1;
      const k = older.pageOf(state.cursor);
      const page = older.held(k);
      if (!page) {
        this.park(ws, state, k, last);
        return 'parked';
      }
      sent += this.sendPage(ws, state, page, last, tuning.eventsPerStep - sent);
    }
  }

  /** Sends the page's events after the socket's cursor (at most `room`); moves the cursor past the page once it is all sent. */
  private sendPage(ws: WebSocket<SocketState>, state: SocketState, page: OlderPage, last: number, room: number): number {
    let i = 0;
    while (i < page.seqs.length && (page.seqs[i] as number) <= state.cursor) i++;
    let sent = 0;
    for (; i < page.seqs.length && sent < room; i++) {
      const seq = page.seqs[i] as number;
      if (seq > last) break;
      ws.send(page.texts[i] as string);
      state.cursor = seq;
      sent++;
      if (ws.getBufferedAmount() > this.src.tuning.socketBudgetBytes) return sent;
    }
    if (i >= page.seqs.length || (page.seqs[i] as number) > last) state.cursor = Math.max(state.cursor, Math.min(page.coveredTo, last));
    return sent;
  }

  /** A socket ahead of its shard waits (set aside like a full buffer); past `aheadWaitMs` it is closed with a retry hint. */
  private waitAhead(ws: WebSocket<SocketState>, state: SocketState): Outcome {
    const { aheadWaitMs, retryAfterMs } = this.src.tuning;
    if (performance.now() - state.openedAt < aheadWaitMs) return 'blocked';
    this.src.logger.warn(
      { since: state.cursor, last: this.src.lastInOrder() },
      'a resuming socket is ahead of this gateway for too long; closed with a retry hint',
    );
    this.src.observer?.closedForRetry();
    ws.end(RETRY_CLOSE_CODE, retryReason(retryAfterMs, state.cursor));
    return 'parked';
  }

  private block(ws: WebSocket<SocketState>): void {
    this.blocked.add(ws);
    this.poll ??= setTimeout(() => this.pollBlocked(), this.src.tuning.blockedPollMs);
  }

  private pollBlocked(): void {
    this.poll = null;
    const low = this.src.tuning.socketBudgetBytes / 2;
    for (const ws of this.blocked) {
      const state = ws.getUserData();
      if (!state.open) this.blocked.delete(ws);
      else if (ws.getBufferedAmount() <= low) {
        this.blocked.delete(ws);
        this.enqueue(ws);
      }
    }
    if (this.blocked.size > 0) this.poll = setTimeout(() => this.pollBlocked(), this.src.tuning.blockedPollMs);
  }

  /** Waits for page `k` of the log (shared with every socket that needs it), then goes on; closes with a retry hint when the log keeps failing. */
  private park(ws: WebSocket<SocketState>, state: SocketState, k: number, last: number): void {
    this.parked++;
    this.src.older.load(k, last).then(
      () => {
        this.parked--;
        state.pageFailures = 0;
        if (state.open) this.enqueue(ws);
      },
      (err: unknown) => {
        this.parked--;
        if (!state.open) return;
        const now = performance.now();
        if (now - this.lastWarnAt > 1_000) {
          this.lastWarnAt = now;
          this.src.logger.warn(
            { err: err instanceof Error ? err.message : err, page: k },
            'reading old events for resuming sockets failed; they wait and try again',
          );
        }
        const { olderReadAttempts, retryAfterMs } = this.src.tuning;
        if (++state.pageFailures >= olderReadAttempts) {
          this.src.observer?.closedForRetry();
          ws.end(RETRY_CLOSE_CODE, retryReason(retryAfterMs, state.cursor));
          return;
        }
        this.parked++;
        setTimeout(
          () => {
            this.parked--;
            if (state.open) this.enqueue(ws);
          },
          backoffMs(state.pageFailures, OLDER_PAGE_RETRY),
        ).unref();
      },
    );
  }
}
