/**
 * The operator CLI's gateway commands on a Redis Cluster of three masters
 * (`REDIS_CLUSTER_NODES`, docs/operations.md#redis-cluster), with the records under the gateway's
 * cluster prefix `{gw}:` (`gateway.suite.ts`), and the prefix the CLI takes when given none.
 */
import { Cluster } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { startRedisCluster, type RedisClusterHandle } from '../../support/redis-cluster.ts';
import { runOps } from '../support.ts';
import { NO_CHAIN } from './fixtures.ts';
import { describeGatewayCommands } from './gateway.suite.ts';

let cluster: RedisClusterHandle | undefined;
let client: Cluster | undefined;

describeGatewayCommands('a Redis Cluster', async () => {
  cluster = await startRedisCluster();
  client = new Cluster(cluster.nodes.split(',').map((n) => ({ host: n.split(':')[0], port: Number(n.split(':')[1]) })));
  return { redis: client, env: { REDIS_CLUSTER_NODES: cluster.nodes }, prefix: '{gw}:' };
});

describe('the CLI on a cluster', () => {
  it('reads the gateway under {gw}: when no --gateway-prefix is given, and refuses both a URL and cluster nodes', async () => {
    const env = { REDIS_CLUSTER_NODES: cluster?.nodes ?? '', SOLANA_RPC_URL: NO_CHAIN };
    const bets = await runOps(['bets', '--json'], env);
    expect(bets.code, bets.stderr).toBe(0);
    expect(bets.json().map((r: { id: string }) => r.id)).toEqual(['101', '102', '103']);
    const both = await runOps(['bets'], { ...env, REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(both.code).not.toBe(0);
    expect(both.stderr).toMatch(/not both/);
  });
});

afterAll(async () => {
  client?.disconnect();
  await cluster?.stop();
});
