/**
 * Which chain the gateway talks to (design: "The local chain", "Run contract"): the JSON-RPC
 * node at `SOLANA_RPC_URL`, or, when unset, the embedded local chain started in-process on a
 * free port over DATA_DIR. The operator key (`DATA_DIR/operator.json`) is admin and relayer.
 * A gateway started before its chain waits for it (and for the key file the chain writes),
 * saying what it waits for; with `GW_INIT=on` an uninitialised contract is then initialised
 * with the GW_* parameters.
 */
import { join } from 'node:path';
import * as v from 'valibot';
import { PublicKey } from '@solana/web3.js';
import { initializeContract } from '../../adapters/chain/initialize.ts';
import { loadLocalChainInfo, loadOperatorKey } from '../../adapters/chain/local/data-dir.ts';
import { startLocalChain, type LocalChain } from '../../adapters/chain/local/start.ts';
import { ChainUnavailable, type InitParams } from '../../adapters/chain/port.ts';
import { RpcChain } from '../../adapters/chain/rpc-chain.ts';
import { HttpTransport, RpcClient } from '../../adapters/chain/rpc-client.ts';
import type { Logger } from '../log.ts';
import type { GatewayConfig } from './config.ts';
import { waitFor } from './wait-for.ts';

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

/** Per-request RPC timeout: a request-path call never waits longer on the chain than this. */
export const RPC_TIMEOUT_MS = 2_000;

/** Connects the chain adapter (starting the embedded chain when needed), waiting for the chain, then applies GW_INIT. */
export async function connectChain(config: GatewayConfig, log: Logger, processLog: Logger = log): Promise<GatewayChain> {
  let embedded: LocalChain | null = null;
  let url = config.SOLANA_RPC_URL;
  if (!url) {
    log.warn({ dataDir: config.DATA_DIR }, 'SOLANA_RPC_URL unset: starting the embedded local chain');
    embedded = await startLocalChain({ dataDir: config.DATA_DIR, port: 0, init: config.GW_INIT === 'on' ? initParams(config) : null, log: processLog });
    url = embedded.url;
  }
  const stop = async () => {
    await embedded?.stop();
  };
  try {
    const keyFile = join(config.DATA_DIR, 'operator.json');
    const operator = await waitFor(
      `the operator key ${keyFile}`,
      async () => loadOperatorKey(config.DATA_DIR) ?? Promise.reject(new Error(`${keyFile} does not exist yet`)),
      log,
      'the local chain writes it on its first start: start the chain first (npm run chain), or point DATA_DIR at its data dir',
    );
    const probe = new RpcClient(new HttpTransport(url, RPC_TIMEOUT_MS));
    await waitFor(`the chain at ${url}`, () => probe.call('getGenesisHash', [], v.string()), log, 'start the chain, or fix SOLANA_RPC_URL');
    // read after the chain answers: the local chain writes its info before it listens
    const local = loadLocalChainInfo(config.DATA_DIR);
    const chain = new RpcChain({
      url,
      operator,
      timeoutMs: RPC_TIMEOUT_MS,
      ...(local?.mint ? { mint: new PublicKey(local.mint) } : {}),
      knownLocalGenesis: local ? [local.genesisHash] : [],
      // the local chain confirms within a slot: poll statuses often (a public cluster keeps the adapter's default)
      ...(local ? { pollMs: 25 } : {}),
    });
    try {
      if (config.GW_INIT === 'on' && config.SMART_MODE === 'test') {
        const outcome = await initializeContract(chain, initParams(config));
        log.info({ outcome }, outcome === 'initialized' ? 'contract initialised with the GW_* parameters' : 'contract already initialised');
      } else if (!(await chain.readConfig())) {
        log.warn({ GW_INIT: config.GW_INIT }, 'the contract is not initialised: /state answers 409 and bets are refused');
      }
    } catch (err) {
      // the chain went away right after answering: requests answer 500/503 until it is back
      if (!(err instanceof ChainUnavailable)) throw err;
      log.error({ err: err.message, url }, 'the chain stopped answering during boot; the contract state is unknown');
    }
    log.info({ url, operator: operator.publicKey.toBase58(), localGenesis: local?.genesisHash ?? null }, 'chain connected');
    return { chain, url, embedded, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
