import { describe, expect, it } from 'vitest';
import { exchangeEnv } from './exchange-env.ts';
import { readGatewayConfig } from './gateway-env.ts';

describe('Redis variables (gateway and exchange)', () => {
  it('names one server by REDIS_URL, and waits for no replica by default', () => {
    const c = readGatewayConfig({ REDIS_URL: 'redis://127.0.0.1:6400' });
    expect(c.redis).toEqual({ target: { kind: 'url', url: 'redis://127.0.0.1:6400' }, durability: { minReplicas: 0, timeoutMs: 500 } });
    expect(readGatewayConfig({}).redis.target).toBeNull();
  });

  it('names a primary by its sentinels and master name', () => {
    const e = exchangeEnv({ REDIS_SENTINELS: '127.0.0.1:26379, localhost:26380,[::1]:26381', REDIS_MASTER_NAME: 'main', REDIS_MIN_REPLICAS: '1' });
    expect(e.redis).toEqual({
      target: {
        kind: 'sentinel',
        name: 'main',
        sentinels: [
          { host: '127.0.0.1', port: 26379 },
          { host: 'localhost', port: 26380 },
          { host: '::1', port: 26381 },
        ],
      },
      durability: { minReplicas: 1, timeoutMs: 500 },
    });
  });

  it.each([
    [{ REDIS_SENTINELS: '127.0.0.1' }, /^REDIS_SENTINELS: must be host:port .*"127.0.0.1" is not host:port/],
    [{ REDIS_SENTINELS: '127.0.0.1:99999', REDIS_MASTER_NAME: 'm' }, /^REDIS_SENTINELS: /],
    [{ REDIS_SENTINELS: '127.0.0.1:26379' }, /^REDIS_MASTER_NAME: must be set with REDIS_SENTINELS/],
    [{ REDIS_SENTINELS: '127.0.0.1:26379', REDIS_MASTER_NAME: 'm', REDIS_URL: 'redis://127.0.0.1:6379' }, /^REDIS_SENTINELS: set either/],
    [{ REDIS_MASTER_NAME: 'm' }, /^REDIS_MASTER_NAME: only means something with REDIS_SENTINELS/],
    [{ REDIS_MASTER_NAME: 'a b', REDIS_SENTINELS: '127.0.0.1:26379' }, /^REDIS_MASTER_NAME: must be the master name/],
    [{ REDIS_MIN_REPLICAS: '1' }, /^REDIS_MIN_REPLICAS: needs REDIS_URL, REDIS_SENTINELS or REDIS_CLUSTER_NODES/],
    [{ REDIS_MIN_REPLICAS: '1', REDIS_CLUSTER_NODES: '127.0.0.1:7000' }, /^REDIS_MIN_REPLICAS: is not supported with REDIS_CLUSTER_NODES/],
    [{ REDIS_CLUSTER_NODES: '127.0.0.1:7000', REDIS_SENTINELS: '127.0.0.1:26379', REDIS_MASTER_NAME: 'm' }, /^REDIS_CLUSTER_NODES: set one of/],
    [{ REDIS_MIN_REPLICAS: '-1', REDIS_URL: 'redis://127.0.0.1:6379' }, /^REDIS_MIN_REPLICAS: must be a non-negative integer/],
    [{ REDIS_WAIT_TIMEOUT_MS: '0', REDIS_URL: 'redis://127.0.0.1:6379' }, /^REDIS_WAIT_TIMEOUT_MS: must be >= 1/],
  ])('stops on %j naming the variable', (env, message) => {
    expect(() => readGatewayConfig(env)).toThrowError(message);
    expect(() => exchangeEnv(env)).toThrowError(message);
  });
});
