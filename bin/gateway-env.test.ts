import { describe, expect, it } from 'vitest';
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
});
