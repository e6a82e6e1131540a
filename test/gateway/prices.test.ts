/** GET /price and the price stream end to end: manual feed -> Redis history + event log -> real uWS over real sockets. */
import { Redis } from 'ioredis';
import { pino } from 'pino';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisEventLog } from '../../adapters/store/event-log/redis.ts';
import { createRedisPriceHistory } from '../../adapters/store/price-history/redis.ts';
import { startPriceIngestion, type PriceService } from '../../runtime/gateway/prices/ingestion.ts';
import { registerPriceRoute } from '../../server/gateway/price-route.ts';
import { createGatewayShell, type GatewayShell } from '../../server/gateway/shell.ts';
import { parseSequencedEvent, PriceObjectSchema, type GatewayEvent } from '../../server/gateway/wire.ts';
import { manualPriceFeed, type ManualPriceFeed } from '../support/manual-price-feed.ts';
import { sharedTestRedis } from '../support/redis-prefix.ts';
import { collect } from '../support/ws-collector.ts';

const logger = pino({ level: 'silent' });
const redis = sharedTestRedis();
const T = 1_763_700_000_000;

async function startGateway(client: Redis, prefix: string) {
  const shell = createGatewayShell<GatewayEvent>({ eventLog: createRedisEventLog<GatewayEvent>(client, { prefix }), logger });
  await shell.events.start();
  const feed = manualPriceFeed();
  const prices = await startPriceIngestion({ feed, history: createRedisPriceHistory(client, { prefix }), events: shell.events, logger });
  shell.events.setSnapshotSource(() => prices.snapshotEvent());
  registerPriceRoute(shell.router, prices);
  const port = await shell.listen(0, '127.0.0.1');
  return { shell, feed, prices, http: `http://127.0.0.1:${port}`, ws: `ws://127.0.0.1:${port}/api/ws` };
}

describe('GET /price and price events', () => {
  let gw: { shell: GatewayShell<GatewayEvent>; feed: ManualPriceFeed; prices: PriceService; http: string; ws: string };
  const prefix = redis.prefix();
  beforeAll(async () => {
    gw = await startGateway(redis.redis(), prefix);
  });
  afterAll(async () => {
    await gw.shell.close();
    await gw.prices.stop();
  });

  it('answers 503 {error} until the first tick, and connects without a snapshot', async () => {
    for (const path of ['/api/price', '/price']) {
      const res = await fetch(`${gw.http}${path}`);
      expect(res.status).toBe(503);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(await res.json()).toEqual({ error: expect.any(String) });
    }
  });

  it('broadcasts each tick as a price event with seq and serves it on GET /price and as the connect snapshot', async () => {
    const early = await collect(gw.ws);
    gw.feed.emit({ price: '150.123', ts: T });
    gw.feed.emit({ price: '150.5', ts: T + 500 });
    await early.until((m) => m.length === 2);
    const events = early.messages.map(parseSequencedEvent);
    expect(events).toEqual([
      { type: 'price', symbol: 'solusdt', price: '150.12300000', ts: T, seq: 1 },
      { type: 'price', symbol: 'solusdt', price: '150.50000000', ts: T + 500, seq: 2 },
    ]);
    for (const path of ['/api/price', '/price']) {
      const res = await fetch(`${gw.http}${path}`);
      expect(res.status).toBe(200);
      expect(v.parse(PriceObjectSchema, await res.json())).toEqual({ symbol: 'solusdt', price: '150.50000000', ts: T + 500 });
    }
    const late = await collect(gw.ws);
    gw.feed.emit({ price: '151', ts: T + 1000 });
    await late.until((m) => m.length === 2);
    expect(late.messages.map(parseSequencedEvent)).toEqual([
      { type: 'price', symbol: 'solusdt', price: '150.50000000', ts: T + 500, seq: 2 },
      { type: 'price', symbol: 'solusdt', price: '151.00000000', ts: T + 1000, seq: 3 },
    ]);
    early.close();
    late.close();
  });

  it('after a restart on the same Redis: GET /price from the history, seq continues, since replays', async () => {
    await gw.prices.settled();
    const client = new Redis(redis.url());
    const second = await startGateway(client, prefix);
    try {
      expect(await (await fetch(`${second.http}/price`)).json()).toEqual({ symbol: 'solusdt', price: '151.00000000', ts: T + 1000 });
      const resumed = await collect(`${second.ws}?since=1`);
      second.feed.emit({ price: '152', ts: T + 1500 });
      await resumed.until((m) => m.some((e) => e.seq === 4));
      expect(resumed.messages.map((e) => e.seq)).toEqual([2, 3, 4]);
      expect(resumed.messages[2]).toEqual({ type: 'price', symbol: 'solusdt', price: '152.00000000', ts: T + 1500, seq: 4 });
      resumed.close();
    } finally {
      await second.shell.close();
      await second.prices.stop();
      client.disconnect();
    }
  });
});
