/** `npm run chain`: the local chain (LiteSVM behind Solana JSON-RPC) as its own process. */
import { startLocalChain } from '../adapters/chain/local/start.ts';
import { loadOrCreatePriceSignerKey } from '../adapters/feed/price-signer.ts';
import { bigUint, chainFaultsEnv, commonEnv, describe, oneOf, port, priceSignerEnv, readEnv, signedPricesEnv, text } from '../runtime/env.ts';
import { runService } from './process.ts';

const chainEnv = {
  CHAIN_PORT: describe('JSON-RPC port (subscriptions on the next port)', port(8899)),
  CHAIN_HOST: describe('listen address', text('127.0.0.1')),
  DATA_DIR: describe('where the chain keeps its state and the role keys (admin, relayer, mint and upgrade authority)', text('.data')),
  GW_INIT: describe('on: initialise the contract on a fresh data dir with the parameters below', oneOf(['on', 'off'] as const)),
  GW_EXPIRY_SECONDS: describe('init: bet window, seconds', bigUint(15n)),
  GW_MIN_AMOUNT: describe('init: minimum stake, token base units', bigUint(100_000_000n)),
  GW_MAX_AMOUNT: describe('init: maximum stake, token base units', bigUint(10_000_000_000n)),
  GW_MULTIPLIER_BPS: describe('init: payout multiplier, basis points', bigUint(13_000n)),
  GW_REFUND_AFTER_SECONDS: describe('init: after expiry + this, anyone may refund an unsettled stake', bigUint(300n)),
  ...signedPricesEnv,
  ...priceSignerEnv,
  ...chainFaultsEnv,
  ...commonEnv,
};

await runService(
  {
    name: 'local-chain',
    command: 'npm run chain',
    purpose: 'The local chain: LiteSVM behind Solana JSON-RPC, state persisted in DATA_DIR, the contract deployed and initialised on a fresh data dir.',
    env: chainEnv,
  },
  async () => {
    const env = readEnv(chainEnv);
    // the admin sets the price rules on the contract it initialised
    if (env.SIGNED_PRICES === 'on' && env.GW_INIT !== 'on')
      throw new Error('SIGNED_PRICES=on needs GW_INIT=on: signed prices are turned on when the contract is initialised');
    return startLocalChain({
      dataDir: env.DATA_DIR,
      host: env.CHAIN_HOST,
      port: env.CHAIN_PORT,
      faults: env.CHAIN_FAULTS,
      ...(env.SIGNED_PRICES === 'on' ? { priceSigner: loadOrCreatePriceSignerKey(env.DATA_DIR, env.PRICE_SIGNER_KEY).publicKey } : {}),
      init:
        env.GW_INIT === 'on'
          ? {
              minAmount: env.GW_MIN_AMOUNT,
              maxAmount: env.GW_MAX_AMOUNT,
              multiplierBps: env.GW_MULTIPLIER_BPS,
              expirySeconds: env.GW_EXPIRY_SECONDS,
              refundAfterSeconds: env.GW_REFUND_AFTER_SECONDS,
            }
          : null,
    });
  },
);
