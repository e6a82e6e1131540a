/**
 * Local chains for the chain tests: each on a fresh data dir and a free port, with the role
 * keys the chain created, and adapters pointed at it over HTTP (and its PubSub WebSocket).
 */
import { rmSync } from 'node:fs';
import { Keypair, PublicKey } from '@solana/web3.js';
export type { Keypair };
import { loadLocalChainInfo, loadOrCreateRoleKeys, type RoleKeys } from '../../adapters/chain/local/data-dir.ts';
import { startLocalChain, type LocalChain } from '../../adapters/chain/local/start.ts';
import type { InitParams } from '../../adapters/chain/port.ts';
import { RpcChain, type RpcChainOptions } from '../../adapters/chain/rpc-chain/index.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { tempDir } from '../support/temp-dir.ts';

/** Short expiry so close_bet tests wait about three seconds, never fifteen; refunds allowed two seconds after expiry. */
export const TEST_PARAMS: InitParams = {
  minAmount: 100_000_000n,
  maxAmount: 10_000_000_000n,
  multiplierBps: 13_000n,
  expirySeconds: 3n,
  refundAfterSeconds: 2n,
};

/** A running local chain for one test file, with its role keys and an adapter factory. */
export interface TestChain {
  chain: LocalChain;
  dataDir: string;
  keys: RoleKeys;
  /** an adapter acting with every role's key (override with `extra`); closed by `stop()` */
  adapter(extra?: Partial<RpcChainOptions>): RpcChain;
  stop(): Promise<void>;
}

/** A local chain on a fresh data dir (init null = GW_INIT=off), with a fault profile when `faults` is given (docs/operations.md#a-fault-profile). */
export async function startTestChain(init: InitParams | null = TEST_PARAMS, faults: string | null = null): Promise<TestChain> {
  const dataDir = tempDir('chain-test-');
  const chain = await startLocalChain({ dataDir, port: 0, init, faults });
  const keys = loadOrCreateRoleKeys(dataDir);
  const info = loadLocalChainInfo(dataDir);
  if (!info?.mint) throw new Error('local chain did not write its info');
  const mint = new PublicKey(info.mint);
  const adapters: RpcChain[] = [];
  return {
    chain,
    dataDir,
    keys,
    adapter: (extra = {}) => {
      const a = new RpcChain({
        url: chain.url,
        wsUrl: chain.wsUrl,
        keys: { relayer: keys.relayer, admin: keys.admin, mintAuthority: keys['mint-authority'], upgradeAuthority: keys['upgrade-authority'] },
        mint,
        knownLocalGenesis: [info.genesisHash],
        pollMs: 20,
        ...extra,
      });
      adapters.push(a);
      return a;
    },
    stop: async () => {
      for (const a of adapters) a.close();
      await chain.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A new wallet with faucet funds (5 SOL, 10000 tokens). */
export async function fundedBettor(chain: RpcChain): Promise<Keypair> {
  const kp = Keypair.generate();
  await chain.faucet(kp.publicKey);
  return kp;
}

/** Waits until wall time reaches `unix` (the local chain's Clock follows wall time). */
export async function untilUnix(unix: bigint): Promise<void> {
  const ms = Number(unix) * 1000 - Date.now();
  if (ms > 0) await sleep(ms + 50);
}
