/**
 * Committing a series (docs/architecture.md#stores): after every transition its snapshot, the
 * events the transition emitted and the history records they change go to the store in one
 * atomic write, and only then to `publish` with their seqs. A commit that fails (Redis down) is
 * retried with backoff until it lands — the same commit with the same rev, so a retry whose first
 * answer was lost never appends events twice; transitions made meanwhile are coalesced into the
 * next commit.
 */
import type { BetRecord } from '../../../adapters/store/bet-history/port.ts';
import type { Sequenced } from '../../../adapters/store/event-log/port.ts';
import type { SnapshotStore } from '../../../adapters/store/snapshot/port.ts';
import type { Logger } from '../../../kernel/log.ts';
import { backoffMs, type RetryPolicy } from '../../../kernel/backoff.ts';
import type { BetEmittedEvent } from '../../../machines/bet-events.ts';
import type { BetTransition } from '../history/records.ts';
import { message, type Series } from './series.ts';
import { setTimeout as sleep } from 'node:timers/promises';

/** What commits are made with. */
export interface SeriesCommitsDeps {
  store: SnapshotStore<BetEmittedEvent, BetRecord>;
  /** the bet history records a commit's transitions write (none when absent) */
  records?: (transitions: readonly BetTransition[]) => Promise<readonly BetRecord[]>;
  /** called with the events of each commit, seqs assigned */
  publish: (events: Array<Sequenced<BetEmittedEvent>>) => void;
  log: Logger;
  /** delays between attempts of a failed commit [250 ms doubling to 5 s] */
  retry?: RetryPolicy;
  /** whether the runtime stopped (a failing commit then stops retrying) */
  stopped(): boolean;
  /**
   * Whether a commit may be written now [always]: a leader's commits wait while its lease is not
   * surely held, so a leader paused past its lease writes nothing when it runs again; they are
   * written once a renewal confirms the lease, or dropped when the runtime stops (the new leader
   * goes on from the stored snapshot).
   */
  mayCommit?: () => boolean;
  /** a series' queued commits have all landed; `final` when the last one ended it */
  landed(series: Series, final: boolean): void;
}

const COMMIT_RETRY: RetryPolicy = { baseMs: 250, maxMs: 5_000 };
/** how often a held commit asks again whether it may be written */
const HELD_POLL_MS = 50;

/** The commit queue of every live series of a runtime. */
export class SeriesCommits {
  /** failed commit attempts so far (operators) */
  failures = 0;

  constructor(private readonly d: SeriesCommitsDeps) {}

  /** Queues a commit of the series' newest snapshot with the events emitted since the last one. */
  queue(series: Series, snapshot: unknown, final: boolean, events: BetEmittedEvent[], transition: BetTransition | null): void {
    const json = JSON.stringify(snapshot);
    if (!final && events.length === 0 && series.latest === json) return; // a tick that changed nothing
    series.latest = json;
    const pending = series.pending;
    const transitions = transition ? [transition] : [];
    series.pending = pending
      ? { json, final: pending.final || final, events: [...pending.events, ...events], transitions: [...pending.transitions, ...transitions] }
      : { json, final, events, transitions };
    this.kick(series);
  }

  /** Starts draining the series' commits unless a drain runs; a batch queued while one was finishing gets a new drain. */
  private kick(series: Series): void {
    if (series.draining) return;
    series.draining = this.drain(series).finally(() => {
      series.draining = null;
      if (series.pending && !this.d.stopped()) this.kick(series);
    });
  }

  /** Commits pending batches in order; a failed commit is retried (same rev) until it lands or the runtime stops. */
  private async drain(series: Series): Promise<void> {
    const { store, log } = this.d;
    const policy = this.d.retry ?? COMMIT_RETRY;
    while (series.pending) {
      // waiting first: transitions made meanwhile join this commit
      if (!(await this.allowed(series.id))) return;
      const batch = series.pending;
      series.pending = null;
      const rev = ++series.rev;
      for (let failures = 0; ;) {
        try {
          // built anew on each attempt: a record read failed, or another writer's record changed meanwhile
          const records = this.d.records && batch.transitions.length > 0 ? await this.d.records(batch.transitions) : [];
          const out = await store.commit(series.id, {
            snapshot: JSON.parse(batch.json),
            json: batch.json,
            final: batch.final,
            events: batch.events,
            rev,
            records,
          });
          if (failures > 0) log.info({ seriesId: series.id, rev, failures }, 'bet snapshot committed after failures');
          if (out.applied) this.publish(series.id, out.events);
          else log.warn({ seriesId: series.id, rev }, 'bet commit was already stored (an earlier answer was lost); its events come from the log');
          break;
        } catch (err) {
          failures++;
          this.failures++;
          if (failures === 1) log.error({ seriesId: series.id, rev, err: message(err) }, 'bet snapshot not committed; retrying until it is');
          if (this.d.stopped()) return;
          await sleep(backoffMs(failures, policy));
          if (this.d.stopped()) return;
          // a retry is a write of its own: only while the lease is still confirmed (a paused leader resumed past it retries nothing)
          if (!(await this.allowed(series.id))) return;
        }
      }
      if (!series.pending) this.d.landed(series, batch.final);
    }
  }

  /** Waits until a commit may be written; false when the runtime stopped first. */
  private async allowed(seriesId: string): Promise<boolean> {
    const may = this.d.mayCommit;
    if (!may || may()) return true;
    this.d.log.warn({ seriesId }, 'bet commit held: the leader lease is not confirmed');
    while (!this.d.stopped()) {
      await sleep(HELD_POLL_MS);
      if (this.d.stopped()) return false;
      if (may()) return true;
    }
    return false;
  }

  private publish(seriesId: string, events: Array<Sequenced<BetEmittedEvent>>): void {
    if (events.length === 0) return;
    try {
      this.d.publish(events);
    } catch (err) {
      this.d.log.error({ seriesId, err }, 'publishing bet events failed');
    }
  }

  /** Resolves once every commit queued so far for `all` has landed (waits through retries). */
  async settled(all: () => Iterable<Series>): Promise<void> {
    for (;;) {
      const draining = [...all()].map((c) => c.draining).filter((d): d is Promise<void> => d !== null);
      if (draining.length === 0) return;
      await Promise.all(draining);
    }
  }

  /** Resolves once the queued commits of the series (re-read each round) have landed, or after `timeoutMs` (false then). */
  async committed(series: () => Series | undefined, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const draining = series()?.draining;
      if (!draining) return true;
      const left = deadline - Date.now();
      if (left <= 0) return false;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([draining.then(() => false), new Promise<boolean>((r) => (timer = setTimeout(() => r(true), left)))]);
      clearTimeout(timer);
      if (timedOut) return false;
    }
  }
}
