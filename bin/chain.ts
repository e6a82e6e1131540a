/** `npm run chain`: the local chain (LiteSVM behind Solana JSON-RPC) as its own process. */
import { bigUint, oneOf, port, readEnv, text } from '../runtime/env.ts';
import { log } from '../runtime/log.ts';
import { startLocalChain } from '../adapters/chain/local/start.ts';

const env = readEnv({
  CHAIN_PORT: port(8899),
  CHAIN_HOST: text('127.0.0.1'),
  DATA_DIR: text('.data'),
  GW_INIT: oneOf(['on', 'off'] as const),
  GW_EXPIRY_SECONDS: bigUint(15n),
  GW_MIN_AMOUNT: bigUint(100_000_000n),
  GW_MAX_AMOUNT: bigUint(10_000_000_000n),
  GW_MULTIPLIER_BPS: bigUint(13_000n),
});

const chain = await startLocalChain({
  dataDir: env.DATA_DIR,
  host: env.CHAIN_HOST,
  port: env.CHAIN_PORT,
  init:
    env.GW_INIT === 'on'
      ? { minAmount: env.GW_MIN_AMOUNT, maxAmount: env.GW_MAX_AMOUNT, multiplierBps: env.GW_MULTIPLIER_BPS, expirySeconds: env.GW_EXPIRY_SECONDS }
      : null,
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log.info({ signal }, 'local chain stopping');
    void chain.stop().then(() => process.exit(0));
  });
}
