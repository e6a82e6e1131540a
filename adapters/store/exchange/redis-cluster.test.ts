/**
 * The Redis ledger on a Redis Cluster of three masters (docs/operations.md#where-state-lives-in-redis):
 * the whole store contract passes through an ioredis `Cluster` client, so no script of the store
 * touches keys of two hash slots (the cluster refuses those with CROSSSLOT).
 */
import { randomUUID } from 'node:crypto';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisExchangeStore } from './redis.ts';
import { storeContract } from './contract.ts';
import { openingBalances } from '../../../machines/exchange/ledger.ts';
import { dec } from '../../../machines/exchange/money.ts';
import { startRedisCluster, type RedisClusterHandle } from '../../../test/support/redis-cluster.ts';

let cluster: RedisClusterHandle;
let client: Cluster;
beforeAll(async () => {
  cluster = await startRedisCluster();
  client = new Cluster(cluster.nodes.split(',').map((a) => ({ host: a.split(':')[0], port: Number(a.split(':')[1]) })));
}, 60_000);
afterAll(async () => {
  client?.disconnect();
  await cluster?.stop();
});

storeContract('Redis Cluster', () => createRedisExchangeStore(client, `cluster-${randomUUID()}`));

describe('the Redis ledger on a cluster', () => {
  it('tags every key of an account with its id, spreads accounts over the masters, and relays each from its own slot', async () => {
    const prefix = `spread-${randomUUID()}`;
    const store = createRedisExchangeStore(client, prefix);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const id = randomUUID();
      ids.push(id);
      const ts = new Date().toISOString();
      const point = { ts, cash: '1', positionsValue: '0', equity: '1', realizedPnl: '0', unrealizedPnl: '0' };
      const account = { id, name: `${prefix}-${i}`, baseCurrency: 'USDT' as const, initialCash: dec('1'), feeRate: dec('0'), createdAt: ts };
      expect(await store.createAccount(account, openingBalances(dec('1')), { type: 'OPEN', ts, amount: '1' }, point)).toBe('created');
    }
    const id = ids[0] as string;
    expect(await client.exists(`${prefix}:account:{${id}}`, `${prefix}:account:{${id}}:journal`, `${prefix}:account:{${id}}:relayed`)).toBe(3);
    const holders = await Promise.all(client.nodes('master').map((n) => n.keys(`${prefix}:account:*`)));
    expect(holders.filter((keys) => keys.length > 0).length).toBeGreaterThan(1);
    expect(await store.listAccountIds()).toEqual(expect.arrayContaining(ids));
    // the events outbox reads and moves each account's cursor in its own slot
    const page = (await store.outbox.read(id, 10))!;
    expect(page.journal.map((e) => e.entry.type)).toEqual(['OPEN']);
    await store.outbox.advance(id, { journal: page.journal[0]!.id, orders: 0 });
    expect((await store.outbox.read(id, 10))!.journal).toEqual([]);
    expect(await store.deleteAccount(id)).toBe(true);
    expect(await store.outbox.read(id, 10)).toBeNull();
    expect(await store.listAccountIds()).not.toContain(id);
  });
});
