/**
 * The Redis ledger's layout on a single server (docs/operations.md#where-state-lives-in-redis): the key
 * names of earlier versions, an account from before the relay cursor, and the account's name and
 * listing written by commands of their own after the account (what a process killed between them leaves).
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisExchangeStore } from './redis.ts';
import type { AccountRecord, ExchangeStore } from './port.ts';
import { openingBalances } from '../../../machines/exchange/ledger.ts';
import { dec } from '../../../machines/exchange/money.ts';
import { startRedisServer, type RunningServer } from '../../../test/support/servers.ts';

let server: RunningServer;
let redis: Redis;
beforeAll(async () => {
  server = await startRedisServer();
  redis = new Redis(server.url);
});
afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

const accountNamed = (name: string): AccountRecord => ({
  id: randomUUID(),
  name,
  baseCurrency: 'USDT',
  initialCash: dec('100'),
  feeRate: dec('0'),
  createdAt: new Date().toISOString(),
});
const create = (store: ExchangeStore, a: AccountRecord) => {
  const point = { ts: a.createdAt, cash: '100', positionsValue: '0', equity: '100', realizedPnl: '0', unrealizedPnl: '0' };
  return store.createAccount(a, openingBalances(a.initialCash), { type: 'OPEN', ts: a.createdAt, amount: '100' }, point);
};

describe('the Redis ledger on a single server', () => {
  it('keeps the key names of earlier versions (no hash tag), so existing data is read as it is', async () => {
    const prefix = `layout-${randomUUID()}`;
    const store = createRedisExchangeStore(redis, prefix);
    const a = accountNamed('plain');
    expect(await create(store, a)).toBe('created');
    expect(await redis.exists(`${prefix}:account:${a.id}`, `${prefix}:account:${a.id}:journal`, `${prefix}:account:${a.id}:equity`)).toBe(3);
    expect(await redis.hget(`${prefix}:names`, 'plain')).toBe(a.id);
    expect(await redis.keys(`${prefix}:account:{*`)).toEqual([]);
    // an open order of an earlier version: in the account's own set (and a global set no longer read)
    await redis.sadd(`${prefix}:account:${a.id}:open-orders`, 'o1');
    await redis.hset(`${prefix}:account:${a.id}:engine-orders`, 'o1', JSON.stringify({ value: 'new' }));
    await redis.sadd(`${prefix}:open-orders`, `${a.id} o1`);
    expect(await store.openEngineOrders()).toEqual([{ accountId: a.id, state: { value: 'new' } }]);
  });

  it('relays an account from before the relay cursor from the end of its journal; a new account from its start', async () => {
    const prefix = `legacy-${randomUUID()}`;
    const store = createRedisExchangeStore(redis, prefix);
    const [old, fresh] = [accountNamed('old'), accountNamed('fresh')];
    await create(store, old);
    await create(store, fresh);
    await redis.del(`${prefix}:account:${old.id}:relayed`); // as an earlier version left it
    expect((await store.outbox.read(old.id, 10))?.journal).toEqual([]);
    expect((await store.outbox.read(fresh.id, 10))?.journal.map((e) => e.entry.type)).toEqual(['OPEN']);
    const loaded = (await store.load(old.id))!.bundle;
    const deposit = { type: 'DEPOSIT' as const, ts: new Date().toISOString(), amount: '1' };
    expect(await store.commit(old.id, loaded.version, { balances: loaded.balances, journal: [deposit] })).toBe('committed');
    const page = (await store.outbox.read(old.id, 10))!;
    expect(page.journal.map((e) => e.entry)).toEqual([deposit]);
    await store.outbox.advance(old.id, { journal: page.journal[0]!.id, orders: 0 });
    await store.outbox.advance(old.id, page.from); // never back
    expect((await store.outbox.read(old.id, 10))?.journal).toEqual([]);
    expect(await store.outbox.read(randomUUID(), 10)).toBeNull();
  });

  it('a name held by an account deleted midway is taken over; an account named but not listed is listed when its name is asked for again', async () => {
    const prefix = `midway-${randomUUID()}`;
    const store = createRedisExchangeStore(redis, prefix);
    // a delete stopped after the account's keys: the name and the listing still name it
    const gone = randomUUID();
    await redis.hset(`${prefix}:names`, 'reused', gone);
    await redis.zadd(`${prefix}:accounts`, '1', gone);
    const a = accountNamed('reused');
    expect(await create(store, a)).toBe('created');
    expect(await redis.hget(`${prefix}:names`, 'reused')).toBe(a.id);
    expect(await store.deleteAccount(gone)).toBe(false);
    expect(await store.listAccountIds()).toEqual([a.id]);
    // a creation stopped after the name: a second one with that name is refused and lists the first
    await redis.zrem(`${prefix}:accounts`, a.id);
    const b = accountNamed('reused');
    expect(await create(store, b)).toBe('name_taken');
    expect(await store.listAccountIds()).toEqual([a.id]);
    expect(await store.load(b.id)).toBeNull();
    expect(await redis.keys(`${prefix}:account:${b.id}*`)).toEqual([]);
  });
});
