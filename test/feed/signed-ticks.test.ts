/**
 * Signed ticks through a real private nats-server (docs/decisions.md#signed-prices): what the
 * signing feed publishes reaches the gateway's ingestion over NATS, is verified and kept in signed
 * form; a tick whose signature was tampered with on the way is refused and counted.
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Keypair } from '@solana/web3.js';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodePriceTick, PRICE_SUBJECT } from '../../adapters/feed/messages.ts';
import { NatsPriceFeed } from '../../adapters/feed/nats-feeds.ts';
import { memorySeqStore, PriceSigner } from '../../adapters/feed/price-signer.ts';
import { publishPrice } from '../../adapters/feed/publisher.ts';
import { createMemoryEventLog } from '../../adapters/store/event-log/memory.ts';
import { createMemoryPriceHistory } from '../../adapters/store/price-history/memory.ts';
import type { GatewayEvent } from '../../runtime/gateway/events/schemas.ts';
import { startPriceIngestion } from '../../runtime/gateway/prices/ingestion.ts';
import { EventStream } from '../../server/gateway/event-stream.ts';
import { startMonitoredNats, type MonitoredNats } from './nats-server.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const logger = pino({ level: 'silent' });

describe('signed ticks over NATS', () => {
  let nats: MonitoredNats;
  let pub: NatsConnection;
  beforeAll(async () => {
    nats = await startMonitoredNats();
    pub = await connect({ servers: nats.url, name: 'signed-publisher' });
  });
  afterAll(async () => {
    await pub?.close();
    await nats?.stop();
  });

  it('reach the price history verified and in signed form; tampered ones are refused and counted', async () => {
    const history = createMemoryPriceHistory();
    const events = new EventStream<GatewayEvent>(createMemoryEventLog<GatewayEvent>(), { logger });
    const feed = new NatsPriceFeed({ url: nats.url, name: 'gateway-prices', logger });
    const prices = await startPriceIngestion({ feed, history, events, logger });
    const signer = new PriceSigner(Keypair.generate(), memorySeqStore(100n));
    const now = Date.now();
    try {
      const sent = [0, 1, 2].map((i) => signer.sign({ symbol: 'solusdt', price: `150.0000000${i}`, ts: now + i * 500 }));
      for (const tick of sent) publishPrice(pub, tick);
      const other = signer.sign({ symbol: 'solusdt', price: '150.5', ts: now + 2000 });
      // the price changed on the way: the signature no longer matches
      pub.publish(PRICE_SUBJECT, encodePriceTick({ ...other, price: '160.50000000' }));
      // an unsigned tick still parses and is used while signed prices are not required
      pub.publish(PRICE_SUBJECT, JSON.stringify({ symbol: 'solusdt', price: '150.7', ts: now + 2500 }));
      await pub.flush();
      const deadline = Date.now() + 10_000;
      while ((await history.size()) < 4 || prices.refusedTicks().forged < 1) {
        if (Date.now() > deadline) throw new Error('ticks did not arrive');
        await sleep(20);
      }
      await prices.settled();
      const stored = await history.between(now - 1, now + 3000);
      expect(stored.slice(0, 3)).toEqual(sent.map((t) => ({ price: t.price, ts: t.ts, signed: t.signed })));
      expect(stored.map((t) => t.signed?.seq)).toEqual([100, 101, 102, undefined]);
      expect(prices.refusedTicks()).toEqual({ forged: 1, unsigned: 0 });
    } finally {
      await prices.stop();
    }
  });
});
