/**
 * Profile A, black box, with the gateway's stores on a Redis Cluster of three masters
 * (`REDIS_CLUSTER_NODES`, every key under the hash tag `{gw}`: docs/operations.md#redis-cluster):
 * the same suite as on one server (`profile-a.suite.ts`), then where its state went.
 */
import { Cluster } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { fetchJson, startGatewayStack } from '../support/gateway-stack.ts';
import { describeProfileA } from './profile-a.suite.ts';

const stack = describeProfileA(() => startGatewayStack({}, { redis: 'cluster' }));

describe('the gateway on a Redis Cluster', () => {
  it('keeps its state under {gw}: (one hash slot, one master) and is healthy', async () => {
    const nodes = (stack().redisEnv.REDIS_CLUSTER_NODES ?? '').split(',').map((n) => ({ host: n.split(':')[0], port: Number(n.split(':')[1]) }));
    const cluster = new Cluster(nodes);
    try {
      await cluster.ping(); // the client knows the masters once connected
      const keysOf = async (pattern: string) => (await Promise.all(cluster.nodes('master').map((m) => m.keys(pattern)))).map((k) => k.length);
      const tagged = await keysOf('{gw}:*');
      expect(tagged.filter((n) => n > 0)).toHaveLength(1);
      expect(tagged.reduce((a, b) => a + b, 0)).toBeGreaterThan(5);
      expect(await keysOf('gw:*')).toEqual([0, 0, 0]);
      expect(await cluster.zcard('{gw}:hist:opened')).toBeGreaterThan(0);
      expect(Number(await cluster.get('{gw}:events:seq'))).toBeGreaterThan(0);
      const health = await fetchJson(stack().base, 'GET', '/health');
      expect(health.status).toBe(200); // UP: the chain and Redis answer (docs/gateway-api.md#health)
      expect(health.body.status).toBe('UP');
    } finally {
      cluster.disconnect();
    }
  });
});
