import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from 'ioredis';
import { startRedisCluster, type RedisClusterHandle } from './redis-cluster.ts';

describe('a private Redis Cluster of three masters', () => {
  let cluster: RedisClusterHandle;
  let client: Cluster;
  beforeAll(async () => {
    cluster = await startRedisCluster();
    client = new Cluster(cluster.nodes.split(',').map((a) => ({ host: a.split(':')[0], port: Number(a.split(':')[1]) })));
  });
  afterAll(async () => {
    client?.disconnect();
    await cluster?.stop();
  });

  it('spreads keys over its masters and runs a script on keys of one hash tag', async () => {
    await Promise.all(Array.from({ length: 30 }, (_, i) => client.set(`spread:${i}`, String(i))));
    const holders = await Promise.all(client.nodes('master').map((n) => n.dbsize()));
    expect(holders.filter((n) => n > 0).length).toBe(3);
    const out = await client.eval("redis.call('SET', KEYS[1], ARGV[1]); return redis.call('INCR', KEYS[2])", 2, '{acct:1}:a', '{acct:1}:b', 'x');
    expect(out).toBe(1);
  });

  it('refuses a script whose keys lie in different slots (CROSSSLOT)', async () => {
    await expect(client.eval("return redis.call('GET', KEYS[1])", 2, 'acct:1:a', 'acct:2:b')).rejects.toThrow(/CROSSSLOT|different slot/i);
  });
});
