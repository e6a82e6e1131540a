/**
 * The Binance-shaped surface, black box, with the ledger on a Redis Cluster of three masters
 * (`REDIS_CLUSTER_NODES`: docs/operations.md#redis-cluster): the same suite as on one server
 * (`binance-api.suite.ts`), then where the API keys and the trade tape went.
 */
import { Cluster } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { describeBinanceApi } from './binance-api.suite.ts';
import { binanceCall } from './binance-support.ts';

const t = describeBinanceApi({ redis: 'cluster' });

describe('API keys on a Redis Cluster', () => {
  it("keeps the keys and their accounts' indexes under {exchange} (one slot), the accounts spread over the masters", async () => {
    if (!(t.redis instanceof Cluster)) throw new Error('the suite runs on one server, not a cluster');
    const held = await Promise.all(t.redis.nodes('master').map((m) => m.keys('{exchange}:*')));
    expect(held.filter((keys) => keys.length > 0)).toHaveLength(1);
    expect(held.flat()).toContain('{exchange}:api-keys');
    expect(held.flat().filter((k) => k.endsWith(':api-keys')).length).toBeGreaterThan(3);
    expect(await t.keysMatching('exchange:api-keys*')).toEqual([]);
    const accounts = await Promise.all(t.redis.nodes('master').map((m) => m.keys('exchange:account:{*}')));
    expect(accounts.filter((keys) => keys.length > 0).length).toBeGreaterThan(1);
  });
});

describe('the trade tape on a Redis Cluster', () => {
  it("keeps each symbol's trades and counter under the symbol's tag, and answers a fill made here", async () => {
    const id = await t.openAccount('tape-on-cluster');
    await t.freshBooks();
    expect((await t.order(id, 'SOLUSDT', 'BUY', '0.5')).status).toBe(201);
    expect(await t.keysMatching('exchange:tape:{SOLUSDT}*')).toEqual(expect.arrayContaining(['exchange:tape:{SOLUSDT}', 'exchange:tape:{SOLUSDT}:seq']));
    const [last] = (await binanceCall(t.baseUrl, 'GET', '/api/v3/trades', 'symbol=SOLUSDT&limit=1')).body as { qty: string; id: number }[];
    expect(last).toMatchObject({ qty: '0.50000000', id: Number(await t.redis.get('exchange:tape:{SOLUSDT}:seq')) });
  });
});
