/** Gateway configuration, validated once at boot (design: "Run contract"). */
import * as v from 'valibot';
import { bigUint, integer, oneOf, optionalText, port, readEnv, text } from '../env.ts';

const base58Address = v.optional(v.pipe(v.string(), v.regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'must be a base58 address')));

export const gatewayEnv = {
  GATEWAY_PORT: port(8080),
  GW_PROFILE: oneOf(['A', 'B'] as const),
  SMART_MODE: oneOf(['test', 'prod'] as const),
  SMART_SETTLE_INTERVAL_MS: integer(2000, 10),
  SOLANA_RPC_URL: optionalText(),
  NATS_URL: optionalText(),
  REDIS_URL: optionalText(),
  DATA_DIR: text('.data'),
  GW_FIXED_BETTOR: base58Address,
  GW_BET_PERCENT: v.pipe(integer(30, 1), v.maxValue(100, 'must be <= 100')),
  GW_MAX_REPLAYS: integer(10),
  GW_KEYSTORE_SECRET: optionalText(),
  GW_ADMIN_TOKEN: optionalText(),
  GW_EXPIRY_SECONDS: integer(15, 1),
  GW_MIN_AMOUNT: bigUint(100_000_000n),
  GW_MAX_AMOUNT: bigUint(10_000_000_000n),
  GW_MULTIPLIER_BPS: bigUint(13_000n),
  GW_INIT: oneOf(['on', 'off'] as const),
};

export type GatewayConfig = ReturnType<typeof readGatewayConfig>;

export function readGatewayConfig(source: Record<string, string | undefined> = process.env) {
  return readEnv(gatewayEnv, source);
}
