/**
 * The Binance-shaped surface, black box, with the ledger on a Redis Cluster of three masters
 * (`REDIS_CLUSTER_NODES`: docs/operations.md#redis-cluster): the same suite as on one server
 * (`binance-api.suite.ts`), then where the API keys went.
 */
import { Cluster } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { describeBinanceApi } from './binance-api.suite.ts';

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
