import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createMemoryEventLog } from '../../../adapters/store/event-log/memory.ts';
import { createMemoryPriceHistory } from '../../../adapters/store/price-history/memory.ts';
import type { PriceHistory } from '../../../adapters/store/price-history/port.ts';
import { EventStream } from '../../../server/gateway/event-stream.ts';
import type { GatewayEvent } from '../events/schemas.ts';
import { manualPriceFeed } from '../../../test/support/manual-price-feed.ts';
import { entryPriceNow, exitPriceAt, MAX_TICK_FUTURE_SKEW_MS, startPriceIngestion, type PriceEventSink } from './ingestion.ts';
import { PRICE_RULES } from './rules.ts';
import { Keypair } from '@solana/web3.js';
import { memorySeqStore, PriceSigner } from '../../../adapters/feed/price-signer.ts';

const logger = pino({ level: 'silent' });
const T = 1_763_700_000_000;

function setup(history: PriceHistory = createMemoryPriceHistory()) {
  const log = createMemoryEventLog<GatewayEvent>();
  const events: PriceEventSink = new EventStream<GatewayEvent>(log, { logger });
  return { feed: manualPriceFeed(), history, log, events };
}

describe('price ingestion', () => {
  it('checks each signed tick before the history: keeps verified ones in signed form, refuses and counts forged ones (docs/decisions.md#signed-prices)', async () => {
    const { feed, history, events } = setup();
    const refused: string[] = [];
    const prices = await startPriceIngestion({ feed, history, events, logger, refused: (r) => refused.push(r) });
    const signer = new PriceSigner(Keypair.generate(), memorySeqStore());
    const good = signer.sign({ symbol: 'solusdt', price: '150.1', ts: T });
    const forged = signer.sign({ symbol: 'solusdt', price: '150.2', ts: T + 500 });
    feed.emit(good);
    feed.emit({ ...forged, price: '999' });
    feed.emit({ price: '150.3', ts: T + 1000 });
    await prices.settled();
    expect(await history.between(0, T + 2000)).toEqual([
      { price: '150.10000000', ts: T, signed: good.signed },
      { price: '150.30000000', ts: T + 1000 },
    ]);
    expect(prices.refusedTicks()).toEqual({ forged: 1, unsigned: 0 });
    expect(refused).toEqual(['forged']);
  });

  it('refuses unsigned ticks once signed prices are required', async () => {
    const { feed, history, events } = setup();
    let required = false;
    const prices = await startPriceIngestion({ feed, history, events, logger, requireSigned: () => required });
    feed.emit({ price: '150', ts: T });
    required = true;
    feed.emit({ price: '151', ts: T + 1 });
    feed.emit(new PriceSigner(Keypair.generate(), memorySeqStore()).sign({ symbol: 'solusdt', price: '152', ts: T + 2 }));
    await prices.settled();
    expect((await history.between(0, T + 5)).map((t) => t.price)).toEqual(['150.00000000', '152.00000000']);
    expect(prices.refusedTicks()).toEqual({ forged: 0, unsigned: 1 });
  });

  it('stores each tick with 8 digits, broadcasts a sequenced price event, tracks the current price', async () => {
    const { feed, history, log, events } = setup();
    const prices = await startPriceIngestion({ feed, history, events, logger });
    expect(feed.started).toBe(1);
    expect(prices.current()).toBeUndefined();
    feed.emit({ price: '150.1', ts: T });
    expect(prices.current()).toEqual({ symbol: 'solusdt', price: '150.10000000', ts: T });
    feed.emit({ price: 150.25, ts: T + 500 });
    await prices.settled();
    expect(await history.latest()).toEqual({ price: '150.25000000', ts: T + 500 });
    expect(await log.readSince(0)).toEqual([
      { type: 'price', symbol: 'solusdt', price: '150.10000000', ts: T, seq: 1 },
      { type: 'price', symbol: 'solusdt', price: '150.25000000', ts: T + 500, seq: 2 },
    ]);
    expect(prices.snapshotEvent()).toEqual({ type: 'price', symbol: 'solusdt', price: '150.25000000', ts: T + 500, seq: 2 });
  });

  it('keeps the newest tick as current when an older one arrives late, but still stores and broadcasts it', async () => {
    const { feed, history, log, events } = setup();
    const prices = await startPriceIngestion({ feed, history, events, logger });
    feed.emit({ price: '2', ts: T + 1000 });
    feed.emit({ price: '1', ts: T });
    await prices.settled();
    expect(prices.current()).toEqual({ symbol: 'solusdt', price: '2.00000000', ts: T + 1000 });
    expect(prices.snapshotEvent()?.price).toBe('2.00000000');
    expect(await history.atOrBefore(T)).toEqual({ price: '1.00000000', ts: T });
    expect((await log.readSince(0)).length).toBe(2);
  });

  it('drops malformed ticks without stopping', async () => {
    const { feed, history, log, events } = setup();
    const prices = await startPriceIngestion({ feed, history, events, logger });
    feed.emit({ price: 'abc', ts: T });
    feed.emit({ price: '-1', ts: T });
    feed.emit({ price: '1', ts: Number.NaN });
    feed.emit({ price: '1', ts: T, symbol: 'btcusdt' });
    feed.emit({ price: '3', ts: T + 1 });
    await prices.settled();
    expect(await history.size()).toBe(1);
    expect((await log.readSince(0)).map((e) => e.seq)).toEqual([1]);
    expect(prices.current()?.price).toBe('3.00000000');
  });

  it('drops a tick stamped more than 60 s ahead of the clock (it would evict the whole history)', async () => {
    const { feed, history, events } = setup();
    const prices = await startPriceIngestion({ feed, history, events, logger, now: () => T });
    feed.emit({ price: '1', ts: T });
    feed.emit({ price: '2', ts: T + MAX_TICK_FUTURE_SKEW_MS });
    feed.emit({ price: '3', ts: T * 1000 });
    await prices.settled();
    expect(await history.size()).toBe(2);
    expect(prices.current()?.price).toBe('2.00000000');
  });

  it('still broadcasts when the history fails', async () => {
    const broken: PriceHistory = { ...createMemoryPriceHistory(), append: async () => Promise.reject(new Error('redis down')) };
    const { feed, log, events } = setup();
    const prices = await startPriceIngestion({ feed, history: broken, events, logger });
    feed.emit({ price: '1', ts: T });
    await prices.settled();
    expect((await log.readSince(0)).length).toBe(1);
  });

  it('seeds the current price from the history (restart) and stops the feed on stop', async () => {
    const history = createMemoryPriceHistory();
    await history.append({ price: '99.00000000', ts: T });
    const { feed, events } = setup(history);
    const prices = await startPriceIngestion({ feed, history, events, logger });
    expect(prices.current()).toEqual({ symbol: 'solusdt', price: '99.00000000', ts: T });
    expect(prices.snapshotEvent()).toBeUndefined();
    await prices.stop();
    expect(feed.stopped).toBe(1);
    feed.emit({ price: '1', ts: T + 1 });
    expect(prices.current()?.ts).toBe(T);
  });

  it('drops ticks beyond the backlog bound', async () => {
    const { feed, history, log } = setup();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow: PriceEventSink = {
      broadcast: async (e) => {
        await gate;
        return { ...e, seq: 1 };
      },
    };
    const prices = await startPriceIngestion({ feed, history, events: slow, logger, maxPending: 3 });
    for (let i = 0; i < 10; i++) feed.emit({ price: '1', ts: T + i });
    release();
    await prices.settled();
    expect(await history.size()).toBe(3);
    expect(await log.lastSeq()).toBe(0);
  });
});

describe('entry and exit prices from the history', () => {
  it('entry: latest tick, refused when older than 30 s', async () => {
    const history = createMemoryPriceHistory();
    expect(await entryPriceNow(history, T)).toEqual({ kind: 'no_price', reason: 'none' });
    await history.append({ price: '150.00000000', ts: T });
    expect(await entryPriceNow(history, T + PRICE_RULES.maxTickAgeMs)).toMatchObject({ kind: 'price', value: 15_000_000_000n });
    expect(await entryPriceNow(history, T + PRICE_RULES.maxTickAgeMs + 1)).toEqual({ kind: 'no_price', reason: 'stale' });
  });

  it('exit: last tick <= expiry once a later tick arrived, else wait, refund after 300 s', async () => {
    const history = createMemoryPriceHistory();
    const expireTime = T / 1000;
    await history.append({ price: '150.00000001', ts: T - 300 });
    expect(await exitPriceAt(history, expireTime, T + 100)).toEqual({ kind: 'wait', reason: 'awaiting_tick' });
    await history.append({ price: '150.00000002', ts: T + 200 });
    expect(await exitPriceAt(history, expireTime, T + 250)).toMatchObject({ kind: 'price', value: 15_000_000_001n });
    const late = createMemoryPriceHistory();
    await late.append({ price: '1', ts: T - PRICE_RULES.maxTickAgeMs - 1 });
    expect(await exitPriceAt(late, expireTime, T + 10_000)).toEqual({ kind: 'wait', reason: 'stale' });
    expect(await exitPriceAt(late, expireTime, T + PRICE_RULES.refundAfterMs)).toEqual({ kind: 'refund_at_entry' });
  });
});
