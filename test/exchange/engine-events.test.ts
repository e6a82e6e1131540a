/**
 * The order engine inside a running exchange (docs/orders.md#events): a limit order placed on the
 * running exchange's engine rests with its cash locked, fills when the feed delivers a book that
 * reaches it, and its order and balance events reach NATS beside the journal entries of the same
 * commits, in the wire format of `runtime/exchange/events.ts`, with the book time of the fill.
 */
import * as v from 'valibot';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectNats } from '../../adapters/feed/nats-connection.ts';
import type { BookSnapshot } from '../../adapters/feed/port.ts';
import { createMemoryExchangeStore } from '../../adapters/store/exchange/memory.ts';
import { startExchange, type RunningExchange } from '../../bin/exchange-app.ts';
import { dec } from '../../machines/exchange/money.ts';
import { openAccount } from '../../runtime/exchange/accounts.ts';
import { ExchangeEventSchema, type ExchangeEvent } from '../../runtime/exchange/events.ts';
import { natsExchangeEvents, type ExchangeEventsPublisher } from '../../runtime/exchange/nats-events.ts';
import { publishingStore } from '../../runtime/exchange/published-store.ts';
import { eventually } from '../support/eventually.ts';
import { pushFeed } from '../support/push-feed.ts';
import { quietLog } from '../support/quiet-log.ts';
import { startNatsServer, type RunningServer } from '../support/servers.ts';

let nats: RunningServer;
let nc: NatsConnection;
let events: ExchangeEventsPublisher;
let exchange: RunningExchange;
const feed = pushFeed();
const seen: { subject: string; event: ExchangeEvent }[] = [];

beforeAll(async () => {
  nats = await startNatsServer();
  nc = await connectNats(nats.url, 'engine-events-test');
  nc.subscribe('exchange.>', { callback: (_err, msg) => void seen.push({ subject: msg.subject, event: v.parse(ExchangeEventSchema, msg.json()) }) });
  await nc.flush();
  events = natsExchangeEvents(nats.url, quietLog);
  // the publisher connects in the background: wait until what it sends arrives
  await eventually(
    'the exchange events publisher to connect',
    async () => {
      events.publish({ kind: 'balance', accountId: 'probe', time: 0, balances: [] });
      return seen.some((s) => s.event.accountId === 'probe') ? true : null;
    },
    10_000,
    50,
  );
  const store = publishingStore(createMemoryExchangeStore(), (e) => events.publish(e), quietLog);
  exchange = await startExchange({ port: 0, mgmtPort: 0, bookMaxAgeMs: 30_000, feed, store, logger: quietLog, publish: (e) => events.publish(e) });
});
afterAll(async () => {
  await exchange?.stop();
  await events?.close();
  await nc?.drain();
  await nats?.stop();
});

describe('engine events on NATS', () => {
  it('announces a resting order, its fill with the book time that justified it, and the balances, after the journal entries of each commit', async () => {
    const t0 = Date.now();
    feed.push({ symbol: 'SOLUSDT', bids: [['149', '10']], asks: [['150', '10']], ts: t0 });
    const opened = await openAccount(exchange.context, 'engine-events', dec('1000'), dec('0.001'));
    if (!opened.ok) throw new Error(opened.message);
    const id = opened.value.id;
    const placed = await exchange.engine.place({
      accountId: id,
      symbol: 'SOLUSDT',
      side: 'BUY',
      type: 'LIMIT',
      quantity: '1',
      price: '148',
      clientOrderId: 'my-1',
    });
    if (!placed.ok) throw new Error(placed.message);
    const reaching: BookSnapshot = { symbol: 'SOLUSDT', bids: [['146', '10']], asks: [['147.5', '3']], ts: t0 + 1 };
    feed.push(reaching);
    const mine = () => seen.filter((s) => s.event.accountId === id);
    await eventually('the fill and its balances', async () => (mine().filter((s) => s.event.kind === 'balance').length >= 2 ? true : null), 5_000, 25);
    expect(
      mine().map((s) => `${s.subject.split('.')[2]}:${s.event.kind === 'journal' ? s.event.entry.type : s.event.kind === 'order' ? s.event.execution : ''}`),
    ).toEqual(['journal:OPEN', 'journal:LOCK', 'order:NEW', 'balance:', 'journal:TRADE', 'journal:UNLOCK', 'order:TRADE', 'balance:']);
    const fill = mine().find((s) => s.event.kind === 'order' && s.event.execution === 'TRADE')!.event;
    expect(fill).toMatchObject({
      orderId: placed.value.order.orderId,
      clientOrderId: 'my-1',
      status: 'FILLED',
      executedQty: '1.0000000000',
      cumulativeQuoteQty: '148.0000000000',
      lastFill: { price: '148.0000000000', qty: '1.0000000000', liquidity: 'MAKER', bookTs: reaching.ts, commission: '0.1480000000', commissionAsset: 'USDT' },
    });
    expect(mine().at(-1)!.event).toMatchObject({
      kind: 'balance',
      balances: [
        { asset: 'USDT', free: '851.8520000000', locked: '0.0000000000' },
        { asset: 'SOL', free: '1.0000000000', locked: '0.0000000000' },
      ],
    });
  });
});
