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
    });
    expect(c.SOLANA_RPC_URL).toBeUndefined();
  });

  it.each([
    ['GW_PROFILE', 'C'],
    ['GW_BET_PERCENT', '101'],
    ['GW_FIXED_BETTOR', 'not-an-address!'],
    ['SMART_MODE', 'live'],
    ['GW_MIN_AMOUNT', '-1'],
  ])('stops on a bad %s naming it', (name, value) => {
    expect(() => readGatewayConfig({ [name]: value })).toThrowError(new RegExp(`^${name}:`));
  });
});
