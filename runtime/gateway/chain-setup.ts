/**
 * Which chain the gateway talks to (design: "The local chain", "Run contract"): the JSON-RPC
 * node at `SOLANA_RPC_URL`, or, when unset, the embedded local chain started in-process on a
 * free port over DATA_DIR. The operator key (`DATA_DIR/operator.json`) is admin and relayer.
 * With `GW_INIT=on` an uninitialised contract is initialised at boot with the GW_* parameters.
 */
import { PublicKey } from '@solana/web3.js';
import { initializeContract } from '../../adapters/chain/initialize.ts';
import { loadLocalChainInfo, loadOperatorKey } from '../../adapters/chain/local/data-dir.ts';
import { startLocalChain, type LocalChain } from '../../adapters/chain/local/start.ts';
import { ChainUnavailable, type InitParams } from '../../adapters/chain/port.ts';
import { RpcChain } from '../../adapters/chain/rpc-chain.ts';
import { ConfigError } from '../env.ts';
import type { Logger } from '../log.ts';
import type { GatewayConfig } from './config.ts';

/** The chain adapter and, when embedded, the local chain behind it. */
export interface GatewayChain {
  chain: RpcChain;
  url: string;
  embedded: LocalChain | null;
  stop(): Promise<void>;
}

/** Contract parameters from the GW_* variables. */
export const initParams = (c: GatewayConfig): InitParams => ({
  minAmount: c.GW_MIN_AMOUNT,
  maxAmount: c.GW_MAX_AMOUNT,
  multiplierBps: c.GW_MULTIPLIER_BPS,
  expirySeconds: BigInt(c.GW_EXPIRY_SECONDS),
});

/** Connects the chain adapter (starting the embedded chain when needed) and applies GW_INIT. */
export async function connectChain(config: GatewayConfig, log: Logger): Promise<GatewayChain> {
  let embedded: LocalChain | null = null;
  let url = config.SOLANA_RPC_URL;
  if (!url) {
    log.warn({ dataDir: config.DATA_DIR }, 'SOLANA_RPC_URL unset: starting the embedded local chain');
    embedded = await startLocalChain({ dataDir: config.DATA_DIR, port: 0, init: config.GW_INIT === 'on' ? initParams(config) : null, log });
    url = embedded.url;
  }
  const operator = loadOperatorKey(config.DATA_DIR);
  if (!operator) throw new ConfigError('DATA_DIR', `${config.DATA_DIR}/operator.json (the admin/relayer key) does not exist`);
  const local = loadLocalChainInfo(config.DATA_DIR);
  const chain = new RpcChain({
    url,
    operator,
    ...(local?.mint ? { mint: new PublicKey(local.mint) } : {}),
    knownLocalGenesis: local ? [local.genesisHash] : [],
    // the local chain confirms within a slot: poll statuses often (a public cluster keeps the adapter's default)
    ...(local ? { pollMs: 25 } : {}),
  });
  const stop = async () => {
    await embedded?.stop();
  };
  try {
    if (config.GW_INIT === 'on' && config.SMART_MODE === 'test') {
      const outcome = await initializeContract(chain, initParams(config));
      log.info({ outcome }, outcome === 'initialized' ? 'contract initialised with the GW_* parameters' : 'contract already initialised');
    } else if (!(await chain.readConfig())) {
      log.warn({ GW_INIT: config.GW_INIT }, 'the contract is not initialised: /state answers 409 and bets are refused');
    }
  } catch (err) {
    // an unreachable chain is not fatal: requests answer 500 until it is back (spec section 7)
    if (!(err instanceof ChainUnavailable)) {
      await stop();
      throw err;
    }
    log.error({ err: err.message, url }, 'the chain is unreachable at boot; the contract state is unknown');
  }
  log.info({ url, operator: operator.publicKey.toBase58(), localGenesis: local?.genesisHash ?? null }, 'chain connected');
  return { chain, url, embedded, stop };
}
