/**
 * The gateway's single way of talking to a chain running the updown program
 * (design: "The local chain"; implemented over JSON-RPC in `rpc-chain.ts`).
 * Business refusals of the program come back as `ProgramRefusal`; a chain that does not
 * answer, or answers garbage, as `ChainUnavailable`.
 */
import type { Keypair, PublicKey } from '@solana/web3.js';
import { DependencyUnavailable } from '../dependency.ts';

export type Side = 'UP' | 'DOWN';
/** Raw contract status: 0 open, 1 payout_done, 2 house_won, 3 refunded (spec section 3). */
export type BetStatus = 0 | 1 | 2 | 3;

export interface ContractConfig {
  admin: string;
  relayer: string;
  mint: string;
  vault: string;
  counter: bigint;
  nextBetId: bigint;
  minAmount: bigint;
  maxAmount: bigint;
  multiplierBps: bigint;
  expirySeconds: bigint;
  paused: boolean;
}

export interface BetAccount {
  id: bigint;
  bettor: string;
  side: Side;
  amount: bigint;
  /** price x 1e8 */
  entryPrice: bigint;
  /** price x 1e8; 0 while open */
  exitPrice: bigint;
  /** unix seconds, from the Clock sysvar */
  betTime: bigint;
  expireTime: bigint;
  status: BetStatus;
}

export interface Balance {
  lamports: bigint;
  tokenUnits: bigint;
}

export interface InitParams {
  minAmount: bigint;
  maxAmount: bigint;
  multiplierBps: bigint;
  expirySeconds: bigint;
}

/** Who moves the stake: a custodial key that signs, or the relayer as SPL delegate of `bettor`'s token account. */
export type StakeAuthority = { kind: 'signer'; bettor: Keypair } | { kind: 'delegate'; bettor: PublicKey };

export interface PlaceBet {
  stake: StakeAuthority;
  side: Side;
  amount: bigint;
  entryPrice: bigint;
}

export interface Placed {
  signature: string;
  betId: bigint;
}

export interface Closed {
  signature: string;
  status: BetStatus;
}

export type ClusterKind = 'local' | 'public' | 'unknown';

export interface ChainPort {
  /** null when the contract is not initialised */
  readConfig(): Promise<ContractConfig | null>;
  readBet(id: bigint): Promise<BetAccount | null>;
  /** id of the bettor's open bet, read from the bettor PDA; null when none */
  readOpenBetId(bettor: PublicKey): Promise<bigint | null>;
  /** every bet with status 0 (getProgramAccounts with filters) */
  scanOpenBets(): Promise<BetAccount[]>;
  /** every bet of one bettor, any status */
  scanBetsOf(bettor: PublicKey): Promise<BetAccount[]>;
  initialize(params: InitParams): Promise<string>;
  placeBet(bet: PlaceBet): Promise<Placed>;
  closeBet(id: bigint, exitPrice: bigint): Promise<Closed>;
  /** close_bet + place_bet (same bettor, side, amount) in one transaction (Profile B tie replay) */
  closeAndReplace(id: bigint, exitPrice: bigint, bettor: Keypair, entryPrice: bigint): Promise<{ closed: Closed; placed: Placed }>;
  setPaused(paused: boolean): Promise<string>;
  /**
   * Grants 5 SOL and 10000 tokens (to the address's ATA, created when missing) in one
   * transaction; concurrent grants to the same address are one grant. Resolves with the grant's signature.
   */
  faucet(address: PublicKey): Promise<string>;
  balances(address: PublicKey): Promise<Balance>;
  vaultBalance(): Promise<bigint>;
  genesisHash(): Promise<string>;
  clusterKind(): Promise<ClusterKind>;
  /** one cheap round trip (health checks); rejects with ChainUnavailable when the chain does not answer */
  ping(): Promise<void>;
}

/** The chain did not answer, timed out, or answered something that is not JSON-RPC (spec section 7: 500 on POST /bet, 503 elsewhere). */
export class ChainUnavailable extends DependencyUnavailable {
  constructor(message: string, options?: { cause?: unknown }) {
    super('chain', message, options);
    this.name = 'ChainUnavailable';
  }
}

/** The chain answered and refused the transaction for a reason that is not the program's (fee payer short of SOL, a malformed transaction): not an outage, and not the client's fault. */
export class ChainRejected extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ChainRejected';
  }
}

/** The program refused the transaction with one of its custom error codes (6000+, see the IDL). */
export class ProgramRefusal extends Error {
  constructor(
    readonly code: number,
    readonly errorName: string,
    message: string,
    readonly logs: string[] = [],
  ) {
    super(message);
    this.name = 'ProgramRefusal';
  }
}
