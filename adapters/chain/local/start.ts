/**
 * Starts the local chain in-process (`npm start`) or as its own process (`npm run chain`):
 * load or create the data dir, replay state, run the fresh-dir setup when needed, then
 * serve JSON-RPC and advance slots (docs/architecture.md#the-local-chain, docs/operations.md#run).
 * A fault profile (docs/operations.md#a-fault-profile) is checked before anything starts and
 * applied once the setup is done (the setup itself never meets a fault).
 */
import type { PublicKey } from '@solana/web3.js';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { getBase58Decoder } from '@solana/kit';
import { componentLog, log as rootLog, type Logger } from '../../../kernel/log.ts';
import { lockDataDir } from '../../store/file/data-dir-lock.ts';
import type { InitParams } from '../port.ts';
import type { JsonRpcTransport } from '../rpc-client.ts';
import { startChainFaults, type ChainFaults } from './faults/chain-faults.ts';
import type { FaultCounters } from './faults/counters.ts';
import { resolveFaultProfile, type FaultProfile, type FaultSettings } from './faults/profile.ts';
import { assertCurrentLayout, chainDir, loadOrCreateRoleKeys, readChainInfo, stateDir, writeChainInfo } from './data-dir.ts';
import { listenJsonRpc } from './http.ts';
import { InProcessTransport } from './in-process.ts';
import { JsonRpcDispatcher } from './json-rpc.ts';
import { LocalNode } from './node.ts';
import { programKeypair } from './program-files.ts';
import { rpcMethods } from './rpc-methods.ts';
import { setUpFreshChain } from './setup.ts';
import { LocalPubSub, listenSubscriptions } from './subscriptions.ts';
import type { PubSub } from '../pubsub.ts';

/** Where the local chain keeps its state, where it listens, and how a fresh contract is initialised. */
export interface LocalChainOptions {
  dataDir: string;
  host?: string;
  /** 0 picks a free port */
  port?: number;
  /** contract parameters for a fresh data dir; null leaves the contract uninitialised (GW_INIT=off) */
  init: InitParams | null;
  /** with `init`: turn signed prices on and trust this price signer (docs/decisions.md#signed-prices) */
  priceSigner?: PublicKey;
  log?: Logger;
  slotMs?: number;
  /** wall time the Clock follows, unix ms [Date.now] */
  now?: () => number;
  /** cluster-like faults: `CHAIN_FAULTS` text or settings; absent, null or `off`: none (docs/operations.md#a-fault-profile) */
  faults?: string | FaultSettings | null;
}

/** The fault profile of a running chain. */
export interface LocalChainFaults {
  /** the profile, its seed filled in */
  profile: FaultProfile & { seed: number };
  /** faults injected so far */
  counters(): FaultCounters;
}

/** A running local chain. */
export interface LocalChain {
  url: string;
  port: number;
  /** signature subscriptions (port + 1 when it was free, as web3.js assumes) */
  wsUrl: string;
  genesisHash: string;
  mint: string;
  /**
   * JSON-RPC without a socket, for a gateway in the same process (same answers as over HTTP; a fault
   * profile's 429 bursts are on the HTTP front only, so a gateway takes the socket when one is on)
   */
  transport: JsonRpcTransport;
  /** subscriptions without a socket, for a gateway in the same process (same notifications as over the WebSocket, never cut) */
  pubsub(): PubSub;
  /** the fault profile at work, or null */
  faults: LocalChainFaults | null;
  stop(): Promise<void>;
}

/** Starts the local chain; resolves once it answers JSON-RPC with the contract deployed. */
export async function startLocalChain(o: LocalChainOptions): Promise<LocalChain> {
  const log = componentLog(o.log ?? rootLog, 'local-chain');
  const started = performance.now();
  const profile = resolveFaultProfile(o.faults); // a bad profile stops the start before anything is opened
  assertCurrentLayout(o.dataDir); // a data dir of the one-key layout is refused, saying how to start fresh
  const lock = lockDataDir(o.dataDir, 'chain'); // one chain process per data dir: two would append to one journal
  try {
    return await openLocalChain(o, profile, log, started, () => lock.release());
  } catch (err) {
    lock.release();
    throw err;
  }
}

async function openLocalChain(o: LocalChainOptions, profile: FaultProfile | null, log: Logger, started: number, unlock: () => void): Promise<LocalChain> {
  const keys = loadOrCreateRoleKeys(o.dataDir);
  let info = readChainInfo(o.dataDir);
  if (info && !info.ready) {
    log.warn('previous setup did not finish; starting this data dir over');
    rmSync(chainDir(o.dataDir), { recursive: true, force: true });
    info = null;
  }
  const fresh = info === null;
  const genesisHash = info?.genesisHash ?? getBase58Decoder().decode(randomBytes(32));
  if (fresh) writeChainInfo(o.dataDir, { genesisHash, mint: null, programId: programKeypair().publicKey.toBase58(), ready: false });

  const node = LocalNode.open({ dir: stateDir(o.dataDir), genesisHash, log, slotMs: o.slotMs, now: o.now });
  const dispatcher = new JsonRpcDispatcher(rpcMethods(node, genesisHash), log);
  node.start();
  let mint = info?.mint ?? null;
  try {
    if (fresh) {
      mint = (
        await setUpFreshChain({
          transport: new InProcessTransport(dispatcher),
          node,
          keys,
          init: o.init,
          log,
          ...(o.priceSigner ? { priceSigner: o.priceSigner } : {}),
        })
      ).toBase58();
      await node.compact(); // the fresh chain starts from a snapshot, its setup journal folded
      writeChainInfo(o.dataDir, { genesisHash, mint, programId: programKeypair().publicKey.toBase58(), ready: true });
    }
  } catch (err) {
    node.close();
    throw err;
  }
  const faults = profile ? startChainFaults(profile, node, log) : null;
  const served = faults ? new JsonRpcDispatcher(rpcMethods(node, genesisHash, faults), log) : dispatcher;
  const close = () => {
    faults?.stop();
    node.close();
  };
  const chain = await serve(o, served, node, faults, log).catch((err: unknown) => {
    close();
    throw err;
  });
  log.info({ url: chain.url, wsUrl: chain.wsUrl, genesisHash, mint, fresh, readyMs: Math.round(performance.now() - started) }, 'local chain ready');
  return {
    ...chain,
    genesisHash,
    mint: mint ?? '',
    stop: async () => {
      await chain.stop();
      close();
      unlock();
    },
  };
}

/** Serves JSON-RPC on the port asked for and PubSub on the next one (another when it is taken). */
async function serve(
  o: LocalChainOptions,
  dispatcher: JsonRpcDispatcher,
  node: LocalNode,
  faults: ChainFaults | null,
  log: Logger,
): Promise<Omit<LocalChain, 'genesisHash' | 'mint'>> {
  const host = o.host ?? '127.0.0.1';
  const { server, port } = await listenJsonRpc(dispatcher, host, o.port ?? 8899, faults?.throttle ?? null);
  const subs = await listenSubscriptions(node, host, port + 1, log, faults)
    .catch(async () => {
      log.warn({ port: port + 1 }, 'subscription port taken; serving subscriptions on another port (pass wsEndpoint to web3.js)');
      return listenSubscriptions(node, host, 0, log, faults);
    })
    .catch((err: unknown) => {
      server.close();
      throw err;
    });
  faults?.disturbPubSub(subs);
  return {
    url: `http://${host}:${port}`,
    port,
    wsUrl: `ws://${host}:${subs.port}`,
    transport: new InProcessTransport(dispatcher),
    pubsub: () => new LocalPubSub(node, faults),
    faults: faults ? { profile: faults.profile, counters: () => faults.counters() } : null,
    stop: async () => {
      subs.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
