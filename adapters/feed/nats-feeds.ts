/**
 * PriceFeed and BookFeed over NATS: SOL ticks from `market.price.solusdt`,
 * books from `market.book.<SYMBOL>` (docs/operations.md#market-data-on-nats). A malformed
 * message is logged and dropped, never thrown.
 *
 * @example
 *   const feed = new NatsPriceFeed({ url: 'nats://127.0.0.1:4222' });
 *   feed.onTick((t) => history.add(t)); await feed.start();
 */
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { componentLog, log as rootLog, type Logger } from '../../kernel/log.ts';
import { DroppedLog } from './dropped-log.ts';
import { Listeners } from './listeners.ts';
import { BOOK_SUBJECTS, decodeBook, decodePriceTick, PRICE_SUBJECT, symbolOfBookSubject, type Decoded } from './messages.ts';
import { connectNats } from './nats-connection.ts';
import type { BookFeed, BookSnapshot, PriceFeed, PriceTick, Unsubscribe } from './port.ts';

/** Where a NATS feed gets its connection: its own (from `url`) or a shared one it will not close. */
export type NatsFeedOptions = ({ url: string; connection?: undefined } | { connection: NatsConnection; url?: undefined }) & {
  /** client name shown by the server; defaults to the feed's kind */
  name?: string;
  logger?: Logger;
  /** told whether its own connection is up (`connectNats`) */
  watch?: (up: boolean) => void;
};

/** Subscribes to fixed subjects and hands decoded values to listeners. */
class NatsSubjectsFeed<T> {
  private nc: NatsConnection | undefined;
  private starting: Promise<void> | undefined;
  private subs: Subscription[] = [];
  readonly listeners: Listeners<T>;
  private readonly log: Logger;
  readonly drops: DroppedLog;

  constructor(
    private readonly options: NatsFeedOptions,
    private readonly subjects: readonly string[],
    private readonly decode: (subject: string, data: Uint8Array) => Decoded<T>,
    private readonly kind: string,
  ) {
    this.log = componentLog(options.logger ?? rootLog, kind);
    this.listeners = new Listeners<T>(this.log);
    this.drops = new DroppedLog(this.log, 'malformed market message dropped');
  }

  start(): Promise<void> {
    // concurrent calls share one connection attempt
    this.starting ??= this.subscribe().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async subscribe(): Promise<void> {
    if (this.nc) return;
    const nc = this.options.connection ?? (await connectNats(this.options.url, this.options.name ?? this.kind, this.log, this.options.watch));
    this.nc = nc;
    this.subs = this.subjects.map((subject) =>
      nc.subscribe(subject, {
        callback: (err, msg) => {
          if (err) return void this.log.error({ err, subject }, 'subscription failed');
          const r = this.decode(msg.subject, msg.data);
          if (r.ok) return this.listeners.emit(r.value);
          this.drops.record({ subject: msg.subject, reason: r.reason, payload: preview(msg.data) });
        },
      }),
    );
    // the server has the subscriptions once this round trip is back: nothing published after start() is missed
    await nc.flush();
    this.log.info({ subjects: this.subjects }, 'subscribed');
  }

  async stop(): Promise<void> {
    const nc = this.nc;
    if (!nc) return;
    this.nc = undefined;
    for (const sub of this.subs) sub.unsubscribe();
    this.subs = [];
    if (this.options.connection) {
      if (!nc.isClosed()) await nc.flush();
    } else if (!nc.isClosed()) await nc.drain();
    this.log.info({ subjects: this.subjects, dropped: this.drops.total }, 'unsubscribed');
  }
}

const preview = (data: Uint8Array): string => Buffer.from(data.buffer, data.byteOffset, Math.min(data.byteLength, 200)).toString('utf8');

/** SOL/USDT ticks from `market.price.solusdt`. */
export class NatsPriceFeed implements PriceFeed {
  private readonly feed: NatsSubjectsFeed<PriceTick>;

  constructor(options: NatsFeedOptions) {
    this.feed = new NatsSubjectsFeed(options, [PRICE_SUBJECT], (_subject, data) => decodePriceTick(data), 'nats-price-feed');
  }

  /** messages dropped as malformed since construction */
  get dropped(): number {
    return this.feed.drops.total;
  }

  start = (): Promise<void> => this.feed.start();
  onTick = (listener: (tick: PriceTick) => void): Unsubscribe => this.feed.listeners.add(listener);
  stop = (): Promise<void> => this.feed.stop();
}

/** BTCUSDT/ETHUSDT/SOLUSDT books from `market.book.<SYMBOL>`; a book whose symbol differs from its subject is dropped. */
export class NatsBookFeed implements BookFeed {
  private readonly feed: NatsSubjectsFeed<BookSnapshot>;

  constructor(options: NatsFeedOptions) {
    this.feed = new NatsSubjectsFeed(options, BOOK_SUBJECTS, (subject, data) => decodeBook(data, symbolOfBookSubject(subject)), 'nats-book-feed');
  }

  /** messages dropped as malformed since construction */
  get dropped(): number {
    return this.feed.drops.total;
  }

  start = (): Promise<void> => this.feed.start();
  onBook = (listener: (book: BookSnapshot) => void): Unsubscribe => this.feed.listeners.add(listener);
  stop = (): Promise<void> => this.feed.stop();
}
