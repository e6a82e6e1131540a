/**
 * NatsPriceFeed / NatsBookFeed against a real private nats-server (docs/operations.md#market-data-on-nats).
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRICE_SUBJECT, bookSubject } from '../../adapters/feed/messages.ts';
import { NatsBookFeed, NatsPriceFeed } from '../../adapters/feed/nats-feeds.ts';
import type { BookSnapshot, PriceTick } from '../../adapters/feed/port.ts';
import { publishBook, publishPrice } from '../../adapters/feed/publisher.ts';
import { startMonitoredNats, type MonitoredNats } from './nats-server.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const quiet = pino({ level: 'silent' });

/** Collects what a feed emits; `next(n)` waits until n values have arrived in total. */
function collector<T>() {
  const values: T[] = [];
  let waiters: { n: number; resolve: () => void }[] = [];
  return {
    values,
    push: (value: T) => {
      values.push(value);
      waiters = waiters.filter((w) => (values.length >= w.n ? (w.resolve(), false) : true));
    },
    next: (n: number) => (values.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve }))),
  };
}

async function until(what: string, ok: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

const btcBook = (ts: number): BookSnapshot => ({
  symbol: 'BTCUSDT',
  bids: [
    ['97000.10', '0.5'],
    ['97000.00', '1.2'],
  ],
  asks: [
    ['97000.20', '0.3'],
    ['97000.50', '2'],
  ],
  ts,
});

describe('NATS market feeds', () => {
  let nats: MonitoredNats;
  let pub: NatsConnection;

  beforeAll(async () => {
    nats = await startMonitoredNats();
    pub = await connect({ servers: nats.url, name: 'test-publisher' });
  });
  afterAll(async () => {
    await pub?.close();
    await nats?.stop();
  });

  it('delivers published ticks decoded, price as string or number', async () => {
    const feed = new NatsPriceFeed({ url: nats.url, name: 'price-1', logger: quiet });
    const got = collector<PriceTick>();
    feed.onTick(got.push);
    await feed.start();
    publishPrice(pub, { symbol: 'solusdt', price: '150.12345678', ts: 1763700000000 });
    pub.publish(PRICE_SUBJECT, '{"symbol":"solusdt","price":150.5,"ts":1763700000500}');
    await got.next(2);
    expect(got.values).toEqual([
      { symbol: 'solusdt', price: '150.12345678', ts: 1763700000000 },
      { symbol: 'solusdt', price: '150.5', ts: 1763700000500 },
    ]);
    await feed.stop();
  });

  it('drops malformed ticks and keeps working', async () => {
    const feed = new NatsPriceFeed({ url: nats.url, name: 'price-2', logger: quiet });
    const got = collector<PriceTick>();
    feed.onTick(got.push);
    await feed.start();
    pub.publish(PRICE_SUBJECT, 'not json at all');
    pub.publish(PRICE_SUBJECT, '{"symbol":"solusdt","price":"-1","ts":1}');
    pub.publish(PRICE_SUBJECT, '{"symbol":"solusdt","price":"1.5e2","ts":1}');
    pub.publish(PRICE_SUBJECT, new Uint8Array([0xff, 0xfe, 0x00]));
    publishPrice(pub, { symbol: 'solusdt', price: '151.00', ts: 1763700001000 });
    // one publisher, one subscriber: NATS keeps the order, so the four bad ones were handled first
    await got.next(1);
    expect(got.values).toEqual([{ symbol: 'solusdt', price: '151.00', ts: 1763700001000 }]);
    expect(feed.dropped).toBe(4);
    await feed.stop();
  });

  it('delivers the books of all three subjects and drops bad ones', async () => {
    const feed = new NatsBookFeed({ url: nats.url, name: 'book-1', logger: quiet });
    const got = collector<BookSnapshot>();
    feed.onBook(got.push);
    await feed.start();
    const eth: BookSnapshot = { symbol: 'ETHUSDT', bids: [['3500.00', '4']], asks: [['3500.01', '3']], ts: 1763700000001 };
    const sol: BookSnapshot = { symbol: 'SOLUSDT', bids: [['150.00', '60']], asks: [['150.02', '55.5']], ts: 1763700000002 };
    // an ETH book on the BTC subject, an unsorted book, a crossed book: all dropped
    pub.publish(bookSubject('BTCUSDT'), JSON.stringify(eth));
    pub.publish(bookSubject('BTCUSDT'), JSON.stringify({ ...btcBook(1), bids: [...btcBook(1).bids].reverse() }));
    pub.publish(bookSubject('SOLUSDT'), JSON.stringify({ ...sol, bids: [['150.03', '1']] }));
    publishBook(pub, btcBook(1763700000000));
    publishBook(pub, eth);
    publishBook(pub, sol);
    // another symbol on a neighbouring subject is not ours at all
    pub.publish('market.book.DOGEUSDT', JSON.stringify({ ...sol, symbol: 'DOGEUSDT' }));
    await got.next(3);
    expect(got.values).toEqual([btcBook(1763700000000), eth, sol]);
    expect(feed.dropped).toBe(3);
    await feed.stop();
  });

  it('stop() unsubscribes: its own connection leaves the server', async () => {
    const feed = new NatsPriceFeed({ url: nats.url, name: 'price-stop', logger: quiet });
    await feed.start();
    const mine = async () => (await nats.connections()).filter((c) => c.name === 'price-stop');
    expect((await mine()).map((c) => c.subscriptions_list)).toEqual([[PRICE_SUBJECT]]);
    await feed.stop();
    await until('the feed connection to go', async () => (await mine()).length === 0);
  });

  it('stop() on a shared connection removes only its subscriptions and leaves the connection open', async () => {
    const shared = await connect({ servers: nats.url, name: 'shared' });
    const feed = new NatsBookFeed({ connection: shared, logger: quiet });
    const got = collector<BookSnapshot>();
    feed.onBook(got.push);
    await feed.start();
    const subsOfShared = async () => (await nats.connections()).find((c) => c.name === 'shared')?.subscriptions_list ?? [];
    expect([...(await subsOfShared())].sort()).toEqual(['market.book.BTCUSDT', 'market.book.ETHUSDT', 'market.book.SOLUSDT']);
    await feed.stop();
    await until('the subscriptions to go', async () => (await subsOfShared()).length === 0);
    expect(shared.isClosed()).toBe(false);
    // nothing more reaches the listener: a fresh subscriber sees the next book, the stopped feed does not
    const probe = shared.subscribe(bookSubject('BTCUSDT'), { max: 1 });
    await shared.flush();
    publishBook(pub, btcBook(2));
    for await (const m of probe) expect(m.json<BookSnapshot>().ts).toBe(2);
    expect(got.values).toEqual([]);
    await shared.close();
  });

  it('opens a single connection when start() is called twice at once', async () => {
    const feed = new NatsBookFeed({ url: nats.url, name: 'book-twice', logger: quiet });
    await Promise.all([feed.start(), feed.start()]);
    await feed.start();
    expect((await nats.connections()).filter((c) => c.name === 'book-twice')).toHaveLength(1);
    await feed.stop();
  });

  it('reconnects after the server restarts and keeps delivering', async () => {
    const feed = new NatsPriceFeed({ url: nats.url, name: 'price-reconnect', logger: quiet });
    const got = collector<PriceTick>();
    feed.onTick(got.push);
    await feed.start();
    await nats.restart();
    // the publisher reconnects too; publish until the resubscribed feed receives
    await until(
      'a tick after the restart',
      async () => {
        publishPrice(pub, { symbol: 'solusdt', price: '152.00', ts: Date.now() });
        return got.values.length > 0;
      },
      30_000,
    );
    expect(got.values[0]).toMatchObject({ symbol: 'solusdt', price: '152.00' });
    await feed.stop();
  });

  it('refuses to start, naming the URL, when no server listens', async () => {
    const feed = new NatsPriceFeed({ url: 'nats://127.0.0.1:1', logger: quiet });
    await expect(feed.start()).rejects.toThrow(/cannot connect to NATS at nats:\/\/127\.0\.0\.1:1/);
  });
});
