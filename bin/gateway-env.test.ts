import { describe, expect, it } from 'vitest';
import { clusterTarget, gatewayKeyPrefix } from '../adapters/store/redis/cluster.ts';
import { readGatewayConfig } from './gateway-env.ts';

describe('gateway config', () => {
  it('has the design defaults', () => {
    const c = readGatewayConfig({});
    expect(c).toMatchObject({
      GATEWAY_PORT: 8080,
      GW_PROFILE: 'A',
      SMART_MODE: 'test',
      SMART_SETTLE_INTERVAL_MS: 2000,
      DATA_DIR: '.data',
      GW_BET_PERCENT: 30,
      GW_MAX_REPLAYS: 10,
      GW_EXPIRY_SECONDS: 15,
      GW_MIN_AMOUNT: 100_000_000n,
      GW_MAX_AMOUNT: 10_000_000_000n,
      GW_MULTIPLIER_BPS: 13_000n,
      GW_INIT: 'on',
      GW_EVENT_REPLICAS: 1,
    });
    expect(c.SOLANA_RPC_URL).toBeUndefined();
  });

  it.each([
    ['GW_PROFILE', 'C'],
    ['GW_BET_PERCENT', '101'],
    ['GW_FIXED_BETTOR', 'not-an-address!'],
    ['SMART_MODE', 'live'],
    ['GW_MIN_AMOUNT', '-1'],
    ['GW_EVENT_REPLICAS', '0'],
    ['GW_EVENT_REPLICAS', '7'],
    ['NATS_URL', 'nats://a:4222,,nats://b:4222'],
  ])('stops on a bad %s naming it', (name, value) => {
    expect(() => readGatewayConfig({ [name]: value })).toThrowError(new RegExp(`^${name}:`));
  });

  it('takes several NATS servers of one cluster, and names the entry that is not one', () => {
    expect(readGatewayConfig({ NATS_URL: 'nats://a:4222, nats://b:4222,c:4222', GW_EVENT_REPLICAS: '3' })).toMatchObject({
      NATS_URL: 'nats://a:4222, nats://b:4222,c:4222',
      GW_EVENT_REPLICAS: 3,
    });
    expect(() => readGatewayConfig({ NATS_URL: 'nats://a:4222,http://b:4222' })).toThrowError(
      /^NATS_URL: must be a NATS URL such as nats:\/\/127.0.0.1:4222, or several of one cluster separated by commas .*"http:\/\/b:4222" is not one/,
    );
  });

  it('takes a Redis Cluster as host:port nodes, refuses a malformed list, and refuses it beside REDIS_URL', () => {
    expect(readGatewayConfig({ REDIS_CLUSTER_NODES: '10.0.0.1:7000, redis-b:7001' }).REDIS_CLUSTER_NODES).toBe('10.0.0.1:7000, redis-b:7001');
    expect(readGatewayConfig({ REDIS_CLUSTER_NODES: '10.0.0.1:7000,redis-b:7001' }).redis.target).toEqual({
      kind: 'cluster',
      cluster: [
        { host: '10.0.0.1', port: 7000 },
        { host: 'redis-b', port: 7001 },
      ],
    });
    expect(readGatewayConfig({}).REDIS_CLUSTER_NODES).toBeUndefined();
    for (const bad of ['redis://10.0.0.1:7000', '10.0.0.1', 'a:70000', ','])
      expect(() => readGatewayConfig({ REDIS_CLUSTER_NODES: bad }), bad).toThrowError(/^REDIS_CLUSTER_NODES:/);
    expect(() => readGatewayConfig({ REDIS_CLUSTER_NODES: '10.0.0.1:7000', REDIS_URL: 'redis://127.0.0.1:6379' })).toThrowError(
      /^REDIS_CLUSTER_NODES:.*not both/,
    );
    expect(gatewayKeyPrefix('redis://127.0.0.1:6379')).toBe('gw:');
    expect(gatewayKeyPrefix(clusterTarget('10.0.0.1:7000'))).toBe('{gw}:');
  });
});
