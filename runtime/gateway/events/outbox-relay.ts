/**
 * The outbox relay (docs/architecture.md#the-event-stream): a bet's snapshot and its events are committed
 * atomically to the gateway's store (Redis or the DATA_DIR journal), which stays the source of
 * truth; the leader relays the committed events from there to the shared JetStream stream, in
 * commit order, each with a dedup id (chain, bet id and kind), so a crash between commit and
 * publish is made good by the next leader without a duplicate: exactly one `bet_closed` per bet.
 * Where to resume is read back from the stream (the outbox seq of the last relayed event).
 *
 * @example
 *   const relay = new OutboxRelay({ outbox: stores.eventLog, stream, log });
 *   await relay.start(); // leader only
 *   relay.kick();        // after a local commit: relay now rather than at the next poll
 *   relay.lagSeconds();  // since the relay last found nothing left to relay (docs/operations.md#metrics)
 */
import type { JetStreamEventLog } from '../../../adapters/store/event-log/jetstream.ts';
import type { EventLog, LoggedEvent, Sequenced } from '../../../adapters/store/event-log/port.ts';
import type { Logger } from '../../../kernel/log.ts';
import type { LeaderRole } from '../leader/leadership.ts';
import { setTimeout as sleep } from 'node:timers/promises';

/** What the relay moves and where. */
export interface OutboxRelayDeps<E extends LoggedEvent> {
  /** the committed events (bet commits append here atomically with their snapshots) */
  outbox: EventLog<E>;
  stream: Pick<JetStreamEventLog<E>, 'appendFromOutbox' | 'lastOutboxSeq' | 'markRelayed'>;
  /** the dedup id of an event: the same for every relay of the same event */
  dedupIdOf: (event: Sequenced<E>) => string;
  log: Logger;
  /** how often the outbox is read when nothing kicks the relay (commits on other gateways) [100] */
  pollMs?: number;
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));
const PAGE = 500;
const RETRY_MS = 1_000;

/** Relays the outbox to the stream while this node leads. */
export class OutboxRelay<E extends LoggedEvent> implements LeaderRole {
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private kicked = false;
  private idleWaiter: (() => void) | null = null;
  /** the outbox seq of the last event relayed, once known (while running) */
  private cursor: number | null = null;
  /** the outbox seq relayed last (kept across a stop and start) */
  private position: number | null = null;
  /** where to go on from instead, after the outbox lost its tail (a Redis failover) */
  private rewound: number | null = null;
  /** when (performance.now ms) a pass last found the outbox relayed to its end; null when not running */
  private caughtUpAt: number | null = null;

  constructor(private readonly deps: OutboxRelayDeps<E>) {}

  async start(): Promise<void> {
    await this.stop();
    this.running = true;
    this.caughtUpAt = performance.now();
    this.loop = this.run();
  }

  /** Stops after one last pass over the outbox (bounded by `graceMs`), so commits made while stopping go out too. */
  async stop(graceMs = 1_000): Promise<void> {
    if (!this.loop) return;
    this.kick();
    await Promise.race([this.idle(), sleep(graceMs)]);
    this.running = false;
    this.wake?.();
    await this.loop;
    this.loop = null;
    this.caughtUpAt = null;
    this.cursor = null;
  }

  /**
   * Seconds since a pass last found every committed event relayed: an event not relayed yet was
   * committed at most this long ago. 0 when this node does not relay (a follower).
   */
  lagSeconds(): number {
    return this.caughtUpAt === null ? 0 : (performance.now() - this.caughtUpAt) / 1000;
  }

  /** Committed events not relayed yet (one read of the outbox's last seq); 0 when this node does not relay. */
  async backlog(): Promise<number> {
    if (this.cursor === null) return 0;
    return Math.max(0, (await this.deps.outbox.lastSeq()) - this.cursor);
  }

  /** Resolves once a pass finds nothing new after the last kick. */
  private idle(): Promise<void> {
    return new Promise((resolve) => {
      this.idleWaiter = resolve;
    });
  }

  /** Something was committed here: relay at once. */
  kick(): void {
    this.kicked = true;
    this.wake?.();
  }

  private pause(ms: number): Promise<void> {
    if (this.kicked || !this.running) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = () => {
        this.wake = null;
        done();
      };
    });
  }

  /**
   * The outbox may have lost events after `seq` (its Redis failed over: docs/operations.md#redis-with-sentinel),
   * and new commits take those seqs again: relay from `seq` at the latest. What is relayed twice is
   * dropped by the stream's duplicate window (the dedup id is the event's, not the seq's).
   */
  rewindTo(seq: number): void {
    this.rewound = Math.max(0, Math.min(seq, this.position ?? seq, this.rewound ?? seq));
    this.deps.log.warn({ from: this.rewound, was: this.position }, 'outbox relay rewound: the outbox may have lost its last events');
    this.kick();
  }

  /** Where to resume: the outbox seq of the last relayed event, unless the outbox started over below it. */
  private async resumeAt(): Promise<number> {
    const [relayed, last] = await Promise.all([this.deps.stream.lastOutboxSeq(), this.deps.outbox.lastSeq()]);
    if (relayed > last) {
      this.deps.log.warn({ relayed, outboxLast: last }, 'the outbox numbers below what the stream holds (store wiped?): relaying all it holds');
      return 0;
    }
    return relayed;
  }

  private async run(): Promise<void> {
    const { outbox, stream, log } = this.deps;
    let failing = false;
    while (this.running) {
      try {
        if (this.rewound !== null) {
          this.cursor = this.cursor === null ? this.rewound : Math.min(this.cursor, this.rewound);
          this.rewound = null;
        }
        this.cursor ??= await this.resumeAt();
        this.kicked = false;
        const page = await outbox.readSince(this.cursor, PAGE);
        for (const event of page) {
          if (!this.running) return;
          await stream.appendFromOutbox(event, event.seq, this.deps.dedupIdOf(event));
          this.cursor = event.seq;
          this.position = event.seq;
        }
        if (page.length > 0) await stream.markRelayed(this.cursor);
        if (failing) log.info({ cursor: this.cursor }, 'event stream reachable again; relaying the outbox');
        failing = false;
        if (page.length < PAGE) {
          this.caughtUpAt = performance.now();
          if (!this.kicked) {
            this.idleWaiter?.();
            this.idleWaiter = null;
          }
          await this.pause(this.deps.pollMs ?? 100);
        }
      } catch (err) {
        if (!failing) log.error({ err: message(err), cursor: this.cursor }, 'outbox not relayed to the event stream; retrying');
        failing = true;
        await this.pause(RETRY_MS);
      }
    }
  }
}
