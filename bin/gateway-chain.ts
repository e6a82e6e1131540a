/**
 * Which chain the gateway talks to (docs/architecture.md#the-local-chain,
 * docs/operations.md#processes): the JSON-RPC node at `SOLANA_RPC_URL`, or, when unset, the
 * embedded local chain started in-process on a free port over DATA_DIR; an embedded chain is called
 * and subscribed to in-process, unless it runs a fault profile (CHAIN_FAULTS): then over its
 * sockets, where its 429s and cuts are.
 *
 * Keys (one per role: docs/architecture.md#the-contract), from DATA_DIR: the relayer's always
 * (`relayer.json`); the admin's only when the admin route is on (`GW_ADMIN_TOKEN`); the test
 * mint's authority only in test mode (the faucet); the upgrade authority's only to initialise
 * (`GW_INIT=on` and the contract not initialised yet). A contract whose relayer (or admin, when
 * the admin key is loaded) is not ours is refused at boot, naming the mismatch.
 *
 * A gateway started before its chain waits for it (and for the key file the chain writes),
 * saying what it waits for.
 */
import type { TickProofs } from '../adapters/chain/port.ts';
import * as v from 'valibot';
import { PublicKey, type Keypair } from '@solana/web3.js';
import { initializeContract } from '../adapters/chain/initialize.ts';
import { assertCurrentLayout, loadLocalChainInfo, loadRoleKey, roleKeyPath, type Role } from '../adapters/chain/local/data-dir.ts';
import { startLocalChain, type LocalChain } from '../adapters/chain/local/start.ts';
import { ChainUnavailable, type ContractConfig, type InitParams } from '../adapters/chain/port.ts';
import { endpoints } from '../adapters/chain/endpoints.ts';
import type { IntentStore } from '../adapters/store/intents/port.ts';
import { RpcChain, pubsubUrlOf, type ChainKeys } from '../adapters/chain/rpc-chain/index.ts';
import { HttpTransport, RpcClient } from '../adapters/chain/rpc-client.ts';
import { observedTransport, type RpcObserver } from '../adapters/chain/observed-transport.ts';
import type { PubSubObserver } from '../adapters/chain/observed-pubsub.ts';
import type { Logger } from '../kernel/log.ts';
import type { GatewayConfig } from './gateway-env.ts';
import { waitFor } from '../runtime/wait-for.ts';

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
  refundAfterSeconds: BigInt(c.GW_REFUND_AFTER_SECONDS),
});

/** Per-request RPC timeout: a request-path call never waits longer on the chain than this. */
export const RPC_TIMEOUT_MS = 2_000;

/** The contract's roles are not this gateway's keys: it could not place, settle or pause. */
export class RoleMismatch extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RoleMismatch';
  }
}

/** Which keys the gateway loads (and waits for): only those its configuration needs. */
function rolesNeeded(config: GatewayConfig): Role[] {
  const roles: Role[] = ['relayer'];
  if (config.GW_ADMIN_TOKEN) roles.push('admin');
  if (config.SMART_MODE === 'test') roles.push('mint-authority');
  return roles;
}

/** Refuses a contract whose relayer or admin is not the key this gateway holds. */
export function checkRoles(contract: ContractConfig, keys: ChainKeys, dataDir: string): void {
  if (contract.relayer !== keys.relayer.publicKey.toBase58()) {
    throw new RoleMismatch(
      `the contract's relayer is ${contract.relayer}, but ${roleKeyPath(dataDir, 'relayer')} holds ${keys.relayer.publicKey.toBase58()}: ` +
        'give this gateway the relayer key of this contract (or have the admin set_relayer to this key)',
    );
  }
  if (keys.admin && contract.admin !== keys.admin.publicKey.toBase58()) {
    throw new RoleMismatch(
      `the contract's admin is ${contract.admin}, but ${roleKeyPath(dataDir, 'admin')} holds ${keys.admin.publicKey.toBase58()}: give this gateway the admin key of this contract, or unset GW_ADMIN_TOKEN`,
    );
  }
}

/** What `connectChain` is given beside the config and its log; every field may be left out. */
export type ConnectChainOptions = Readonly<{
  /** the log of the embedded chain, when one is started [the gateway's log] */
  processLog?: Logger;
  /**
   * a local chain already running in this process (npm start): called in-process (over its
   * sockets when it runs a fault profile) and left running on stop
   */
  sameProcess?: LocalChain | null;
  /** told of every JSON-RPC call (metrics) */
  observeRpc?: RpcObserver;
  /** where the landing engine records the transactions it sends (docs/architecture.md#landing-transactions) */
  intents?: IntentStore;
  /** told of every PubSub subscribe and unsubscribe (metrics) */
  observePubSub?: PubSubObserver;
  /** the signed ticks placements and closes carry when the contract requires them */
  tickProofs?: TickProofs;
}>;

/**
 * Connects the chain adapter (starting the embedded chain when needed), waiting for the chain,
 * then applies GW_INIT and checks the roles.
 */
export async function connectChain(config: GatewayConfig, log: Logger, options: ConnectChainOptions = {}): Promise<GatewayChain> {
  const { processLog = log, sameProcess = null, observeRpc, intents, observePubSub, tickProofs } = options;
  assertCurrentLayout(config.DATA_DIR);
  let embedded: LocalChain | null = null;
  let url = sameProcess?.url ?? config.SOLANA_RPC_URL;
  if (!url) {
    log.warn({ dataDir: config.DATA_DIR }, 'SOLANA_RPC_URL unset: starting the embedded local chain');
    embedded = await startLocalChain({
      dataDir: config.DATA_DIR,
      port: 0,
      init: config.GW_INIT === 'on' ? initParams(config) : null,
      log: processLog,
      faults: config.CHAIN_FAULTS,
    });
    url = embedded.url;
  }
  let chain: RpcChain | null = null;
  const stop = async () => {
    chain?.close();
    await embedded?.stop();
  };
  try {
    const loaded: Partial<Record<Role, Keypair>> = {};
    for (const role of rolesNeeded(config)) {
      const file = roleKeyPath(config.DATA_DIR, role);
      loaded[role] = await waitFor(
        `the ${role} key ${file}`,
        async () => loadRoleKey(config.DATA_DIR, role) ?? Promise.reject(new Error(`${file} does not exist yet`)),
        log,
        'the local chain writes it on its first start: start the chain first (npm run chain), or point DATA_DIR at its data dir',
      );
    }
    const relayer = loaded.relayer as Keypair;
    const local = embedded ?? sameProcess;
    // the embedded chain is called in-process (no HTTP on the request path); a chain elsewhere over
    // keep-alive HTTP (several: docs/architecture.md#landing-transactions), and so is an embedded one
    // with a fault profile, whose 429s and cuts are on its sockets (docs/operations.md#a-fault-profile)
    const urls = url.split(',').map((u) => u.trim());
    const inProcess = local && !local.faults ? local : null;
    const direct = inProcess?.transport ?? endpoints(urls.map((u) => new HttpTransport(u, RPC_TIMEOUT_MS)));
    const transport = observeRpc ? observedTransport(direct, observeRpc) : direct;
    const probe = new RpcClient(transport);
    await waitFor(`the chain at ${url}`, () => probe.call('getGenesisHash', [], v.string()), log, 'start the chain, or fix SOLANA_RPC_URL');
    // read after the chain answers: the local chain writes its info before it listens
    const info = loadLocalChainInfo(config.DATA_DIR);
    const keys: ChainKeys = {
      relayer,
      ...(loaded.admin ? { admin: loaded.admin } : {}),
      ...(loaded['mint-authority'] ? { mintAuthority: loaded['mint-authority'] } : {}),
    };
    const upgradeAuthority = config.GW_INIT === 'on' ? loadRoleKey(config.DATA_DIR, 'upgrade-authority') : null;
    chain = new RpcChain({
      transport,
      ...(inProcess ? { pubsub: inProcess.pubsub() } : { wsUrl: local?.wsUrl ?? config.SOLANA_WS_URL ?? pubsubUrlOf(urls[0] as string) }),
      keys: upgradeAuthority ? { ...keys, upgradeAuthority } : keys,
      ...(loaded.admin ? {} : { adminAddress: loadRoleKey(config.DATA_DIR, 'admin')?.publicKey }),
      timeoutMs: RPC_TIMEOUT_MS,
      ...(info?.mint ? { mint: new PublicKey(info.mint) } : {}),
      knownLocalGenesis: info ? [info.genesisHash] : [],
      // the local chain confirms within a slot: poll statuses often (a public cluster keeps the adapter's default)
      ...(info ? { pollMs: 25 } : {}),
      resendMs: config.GW_RESEND_MS,
      answerWithinMs: config.GW_BET_ANSWER_MS,
      ...((config.GW_COMPUTE_BUDGET === 'auto' ? !info : config.GW_COMPUTE_BUDGET === 'on') ? { computeBudget: { maxPrice: config.GW_PRIORITY_FEE_MAX } } : {}),
      ...(intents ? { intents } : {}),
      ...(observePubSub ? { observePubSub } : {}),
      ...(tickProofs ? { tickProofs } : {}),
      log,
    });
    let contract: ContractConfig | null = null;
    try {
      if (config.GW_INIT === 'on' && !(await chain.readConfig())) {
        if (!upgradeAuthority) {
          log.warn(
            { file: roleKeyPath(config.DATA_DIR, 'upgrade-authority') },
            'the contract is not initialised and this gateway holds no upgrade authority key: /state answers 409 and bets are refused until it is',
          );
        } else {
          const outcome = await initializeContract(chain, initParams(config));
          log.info({ outcome }, outcome === 'initialized' ? 'contract initialised with the GW_* parameters' : 'contract already initialised');
        }
      }
      contract = await chain.readConfig();
      if (!contract) log.warn({ GW_INIT: config.GW_INIT }, 'the contract is not initialised: /state answers 409 and bets are refused');
    } catch (err) {
      // the chain went away right after answering: requests answer 500/503 until it is back
      if (!(err instanceof ChainUnavailable)) throw err;
      log.error({ err: err.message, url }, 'the chain stopped answering during boot; the contract state is unknown');
    }
    if (contract) checkRoles(contract, keys, config.DATA_DIR);
    // transactions a previous run of this gateway was landing when it stopped: the same bytes again
    const resumed = await chain.resumeIntents();
    if (resumed > 0) log.info({ resumed }, 'resuming the transactions being landed when the gateway last stopped');
    log.info(
      { url, relayer: relayer.publicKey.toBase58(), admin: keys.admin?.publicKey.toBase58() ?? null, localGenesis: info?.genesisHash ?? null },
      'chain connected',
    );
    return { chain, url, embedded: local, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
