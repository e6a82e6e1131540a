/**
 * How the JSON-RPC chain port is set up (docs/architecture.md#the-chain-mirror): the keys of the
 * roles it acts in (docs/architecture.md#the-contract: roles are separate), the endpoints, the
 * timeouts, and the PubSub URL derived from an RPC URL.
 */
import type { TickProofs } from '../port.ts';
import type { Keypair, PublicKey } from '@solana/web3.js';
import type { Logger } from '../../../kernel/log.ts';
import type { PubSub } from '../pubsub.ts';
import type { PubSubObserver } from '../observed-pubsub.ts';
import type { JsonRpcTransport } from '../rpc-client.ts';
import type { BudgetOptions } from '../landing/budget.ts';
import type { IntentStore } from '../../store/intents/port.ts';

/** tokens minted into the vault when the adapter initialises a contract (1,000,000 of a 6-decimal mint) */
export const VAULT_FUNDING = 1_000_000n * 1_000_000n;

/** The keys of the roles this adapter may act in. */
export interface ChainKeys {
  /** places, settles and reclaims bets; pays fees and rent */
  relayer: Keypair;
  /** pause (and the other admin instructions) */
  admin?: Keypair;
  /** the local test mint's authority: faucet grants, vault funding */
  mintAuthority?: Keypair;
  /** the program's upgrade authority: initialize */
  upgradeAuthority?: Keypair;
}

/** How to reach the chain, and as whom. */
export interface RpcChainOptions {
  /** JSON-RPC endpoint (or give `transport`) */
  url?: string;
  transport?: JsonRpcTransport;
  /** PubSub endpoint (default: the RPC URL on port + 1, as web3.js assumes), or give `pubsub` */
  wsUrl?: string;
  pubsub?: PubSub;
  /** told of every subscribe and unsubscribe request (metrics) */
  observePubSub?: PubSubObserver;
  keys: ChainKeys;
  /** the admin named by `initialize` when this adapter holds no admin key */
  adminAddress?: PublicKey;
  /** mint used by `initialize` (after that the config's mint is used) */
  mint?: PublicKey;
  /** genesis hashes of chains known to be test chains ('local') */
  knownLocalGenesis?: string[];
  /** per-request timeout (default 10 s) */
  timeoutMs?: number;
  /** confirmation deadline (default 30 s) */
  confirmTimeoutMs?: number;
  /** pause between status polls (default 200 ms) */
  pollMs?: number;
  /** the same transaction bytes are sent again after this long unconfirmed (default 700 ms) */
  resendMs?: number;
  /** a placement not confirmed by then is answered as unknown, while it goes on landing (default 5000 ms) */
  answerWithinMs?: number;
  /** a compute-unit limit and a priority fee on every transaction (docs/architecture.md#landing-transactions) */
  computeBudget?: BudgetOptions;
  /** where placements being landed are recorded, so a restart resumes them (docs/architecture.md#landing-transactions) */
  intents?: IntentStore;
  /** tokens minted into the vault on initialize (default VAULT_FUNDING; 0 skips) */
  vaultFunding?: bigint;
  /** closes per settlement transaction */
  closesPerTransaction?: number;
  /** the signed ticks placements and closes carry once the contract requires signed prices (docs/decisions.md#signed-prices) */
  tickProofs?: TickProofs;
  log?: Logger;
}

/** The PubSub URL web3.js would derive from an RPC URL: the same host, port + 1, ws(s). */
export function pubsubUrlOf(rpcUrl: string): string {
  const u = new URL(rpcUrl);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  if (u.port) u.port = String(Number(u.port) + 1);
  return u.toString();
}
