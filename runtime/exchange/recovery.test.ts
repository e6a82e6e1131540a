import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, fromPromise, waitFor } from 'xstate';
import type { BookSnapshot } from '../../adapters/feed/port.ts';
import type { ExchangeStore } from '../../adapters/store/exchange-port.ts';
import { redisExchangeStore } from '../../adapters/store/exchange-redis.ts';
import { orderMachine, type Execution, type OrderRequest, type Pricing } from '../../machines/order.ts';
import { startRedisServer, type RunningServer } from '../../test/support/servers.ts';
import { log } from '../log.ts';
import { openAccount } from './accounts.ts';
import { bookCache } from './book-cache.ts';
import type { ExchangeContext } from './context.ts';
import { dec } from './money.ts';
import { runOrderActor } from './orders.ts';
import { resumeUnfinishedOrders } from './recovery.ts';

let redis: RunningServer;
let store: ExchangeStore;
let now = Date.now();
const books = bookCache(30_000, () => now);
const ctx = (): ExchangeContext => ({ store, books, now: () => new Date(now), log: log.child({}, { level: 'silent' }) });
const sol = (): BookSnapshot => ({ symbol: 'SOLUSDT', bids: [['99', '10']], asks: [['100', '10']], ts: now });

beforeAll(async () => {
  redis = await startRedisServer();
  store = redisExchangeStore(redis.url, 'recovery');
});
afterAll(async () => {
  await store?.close();
  await redis?.stop();
});

/** Leaves an order persisted in `priced`, as a process that died while executing it would. */
async function strandPriced(accountId: string): Promise<{ request: OrderRequest; snapshot: unknown }> {
  const orderId = randomUUID();
  const request: OrderRequest = { orderId, accountId, symbol: 'SOLUSDT', side: 'BUY', qty: '1', idempotencyKey: null, fingerprint: 'f', dedupeKey: `order:${orderId}` };
  const book = sol();
  const actor = createActor(
    orderMachine.provide({
      actors: { priceOrder: fromPromise(async (): Promise<Pricing> => ({ ok: true, book })), executeOrder: fromPromise(() => new Promise<Execution>(() => undefined)) },
    }),
    { input: request },
  ).start();
  await waitFor(actor, (s) => s.value === 'priced');
  const snapshot = actor.getPersistedSnapshot();
  await store.saveOrderState(accountId, orderId, snapshot);
  actor.stop();
  return { request, snapshot };
}

async function account() {
  const r = await openAccount(ctx(), `r-${randomUUID()}`, dec('1000'), dec('0.001'));
  if (!r.ok) throw new Error(r.message);
  return r.value.id;
}

describe('resuming unfinished orders', () => {
  it('carries a priced order on while its book is fresh', async () => {
    books.put(sol());
    const id = await account();
    const { request } = await strandPriced(id);
    const ended = await resumeUnfinishedOrders(ctx());
    expect(ended).toContainEqual({ orderId: request.orderId, state: 'filled' });
    expect((await store.load(id))?.bundle.balances.cash.toFixed()).toBe('899.9');
    expect(await store.readOrderState(id, request.orderId)).toMatchObject({ status: 'done', value: 'filled' });
  });

  it('never trades twice when the order had committed before the crash', async () => {
    books.put(sol());
    const id = await account();
    const { request, snapshot } = await strandPriced(id);
    await runOrderActor(ctx(), request); // the commit happened ...
    await store.saveOrderState(id, request.orderId, snapshot); // ... but the final snapshot was lost
    const ended = await resumeUnfinishedOrders(ctx());
    expect(ended).toContainEqual({ orderId: request.orderId, state: 'filled' });
    expect(await store.orders(id, 10)).toHaveLength(1);
    expect((await store.load(id))?.bundle.balances.cash.toFixed()).toBe('899.9');
  });

  it('refuses a priced order whose book has gone stale', async () => {
    books.put(sol());
    const id = await account();
    const { request } = await strandPriced(id);
    now += 31_000;
    const ended = await resumeUnfinishedOrders(ctx());
    expect(ended).toContainEqual({ orderId: request.orderId, state: 'rejected' });
    expect(await store.orders(id, 10)).toHaveLength(0);
    expect(await store.readOrderState(id, request.orderId)).toMatchObject({ value: 'rejected', context: { refusal: { code: 'PRICE_UNAVAILABLE' } } });
  });
});
