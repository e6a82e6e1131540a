/**
 * The gateway's single way of talking to a chain running the updown program
 * (docs/architecture.md#the-chain-mirror; implemented over JSON-RPC in `rpc-chain/`).
 * Business refusals of the program come back as `ProgramRefusal`; a chain that does not
 * answer, or answers garbage, as `ChainUnavailable`.
 */
import type { Tick } from '../feed/port.ts';
import type { Keypair, PublicKey } from '@solana/web3.js';
import type { BetStatus, Side } from '../../kernel/domain.ts';
import { DependencyUnavailable } from '../../kernel/errors.ts';

export interface ContractConfig {
  admin: string;
  /** the admin proposed by the admin, until accepted; null when none */
  pendingAdmin: string | null;
  relayer: string;
  mint: string;
  vault: string;
  counter: bigint;
  nextBetId: bigint;
  minAmount: bigint;
  maxAmount: bigint;
  multiplierBps: bigint;
  expirySeconds: bigint;
  /** after expireTime + this, anyone may refund an open bet's stake (refund_expired) */
  refundAfterSeconds: bigint;
  /** what the vault owes if every open bet wins: sum of amount x multiplier of open bets */
  openLiability: bigint;
  paused: boolean;
}

/** Where a bet lives: ["bet", bettor, seq] (seq: the bettor's bet count when it was placed). */
export interface BetRef {
  bettor: string;
  seq: bigint;
}

export interface BetAccount extends BetRef {
  /** the global id the program assigned (config.next_bet_id at placement) */
  id: bigint;
  /** who paid its rent (gets it back when the account is reclaimed) */
  payer: string;
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

/** A bettor's state on chain: its open bet and how many bets it placed (the next bet's seq). */
export interface BettorState {
  bettor: string;
  payer: string;
  /** null when the bettor has no open bet */
  openBetId: bigint | null;
  betCount: bigint;
  /** settled bets whose accounts were closed */
  reclaimed: bigint;
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
  refundAfterSeconds: bigint;
}

/** The bettor's consent to one delegated bet (docs/decisions.md#bet-intents): its Ed25519 signature over the intent text, and until when it holds. */
export interface BetIntent {
  /** 64 bytes: the bettor's signature over `ChainPort.intentMessage(...)` */
  signature: Uint8Array;
  /** unix seconds */
  validUntil: bigint;
}

/**
 * Who moves the stake: a custodial key that signs, or the relayer as SPL delegate of `bettor`'s
 * token account, with the bettor's signed intent for this bet.
 */
export type StakeAuthority = { kind: 'signer'; bettor: Keypair } | { kind: 'delegate'; bettor: PublicKey; intent: BetIntent };

/** What a bet intent allows, but the contract's own addresses (docs/decisions.md#bet-intents). */
export interface IntentTerms {
  bettor: PublicKey;
  side: Side;
  amount: bigint;
  /** the bettor's next bet sequence number (its bettor state's bet count) */
  betNumber: bigint;
  /** unix seconds */
  validUntil: bigint;
}

/**
 * A placement the bettor's own wallet signs and sends (a Solana Action, docs/gateway-api.md#bet-with-your-wallet):
 * the bettor signs for its stake, no delegation needed.
 */
export interface WalletPlacementTerms {
  bettor: PublicKey;
  side: Side;
  amount: bigint;
  /** the bettor's next bet sequence number (its bettor state's bet count) */
  betNumber: bigint;
  /** the entry price x 1e8 when the contract takes the relayer's price (with signed prices the newest signed tick's is used) */
  entryPrice: bigint;
}

/** A placement transaction for the bettor's wallet: the relayer has signed it, the bettor signs and sends it. */
export interface WalletPlacement {
  /** the wire bytes, the bettor's signature slot empty (the fee payer's: the bettor's) */
  transaction: Uint8Array;
  /** the entry price x 1e8 the placement records */
  entryPrice: bigint;
}

export interface PlaceBet {
  stake: StakeAuthority;
  side: Side;
  amount: bigint;
  entryPrice: bigint;
}

export interface Placed {
  signature: string;
  /** the bet as the chain holds it after the placement */
  bet: BetAccount;
}

export interface Closed {
  /** the close transaction; '' when `already` (nothing was sent: `ChainPort.betTransactions` says which transaction closed it) */
  signature: string;
  status: BetStatus;
  /** price x 1e8 the bet was closed at (its entry price for a refund) */
  exitPrice: bigint;
  /** true when the bet was already closed (by an earlier attempt or another gateway): nothing was sent */
  already: boolean;
}

export type ClusterKind = 'local' | 'public' | 'unknown';

/** The transactions that placed and closed a bet, as the signature history of its account says (null where it cannot). */
export interface BetTransactions {
  placeTx: string | null;
  closeTx: string | null;
}

/** A tick with its price signer's signature (docs/decisions.md#signed-prices). */
export type SignedTick = Tick & { signed: NonNullable<Tick['signed']> };

/** Where the signed ticks a transaction carries come from when the contract requires them (docs/decisions.md#signed-prices). */
export interface TickProofs {
  /** the newest signed tick (an entry price), if any */
  latest(): SignedTick | undefined;
  /** ticks n, n+1 of one signer with ts(n) <= expireTime < ts(n+1), ts(n) at most 30 s before, once both are held; else why not */
  exitPair(expireTime: bigint): Promise<[SignedTick, SignedTick] | string>;
}

export interface ChainPort {
  /** whether the contract requires signed prices (its price rules say so); optional: false without */
  signedPricesRequired?(): Promise<boolean>;
  /** null when the contract is not initialised */
  readConfig(): Promise<ContractConfig | null>;
  /**
   * Reads answered from what is held in memory, without waiting (a read route's fast path), or
   * undefined when the async read would have to wait or fail (not synced yet, the chain away, a
   * wallet not watched yet). A held value is replaced, never changed, when its account changes.
   * Optional: an adapter without a mirror has none.
   */
  heldConfig?(): ContractConfig | null | undefined;
  /** changes whenever a held value changes (a body made from held values is current while it is the same); undefined as above */
  heldVersion?(): number | undefined;
  heldVaultBalance?(): bigint | undefined;
  heldBalances?(address: PublicKey): Balance | undefined;
  /** the bet at `ref`; null when there is none (never placed, or its account was reclaimed) */
  readBet(ref: BetRef): Promise<BetAccount | null>;
  /** `readBet` from the chain itself, not what is held of it (after a write failed on it: it may have changed or gone) */
  rereadBet(ref: BetRef): Promise<BetAccount | null>;
  /** the bettor's state; null when the bettor never bet (or its state was closed) */
  readBettorState(bettor: PublicKey): Promise<BettorState | null>;
  /** `readBettorState` from the chain itself, not what is held of it (a placement was refused for an open bet not yet seen) */
  rereadBettorState(bettor: PublicKey): Promise<BettorState | null>;
  /** every bet with status 0 */
  scanOpenBets(): Promise<BetAccount[]>;
  /**
   * The transactions that placed and closed the bet at `ref`, from the signature history of its
   * account (getSignaturesForAddress): a close found already made (by a process that died before
   * recording it, or by another gateway) still gets its transaction. Nulls when the chain keeps
   * no such history.
   */
  betTransactions(ref: BetRef): Promise<BetTransactions>;
  /** every bet of one bettor still on chain, any status, oldest first */
  scanBetsOf(bettor: PublicKey): Promise<BetAccount[]>;
  initialize(params: InitParams): Promise<string>;
  placeBet(bet: PlaceBet): Promise<Placed>;
  /** The text a bettor signs to allow one delegated bet on this contract, as UTF-8 bytes (docs/decisions.md#bet-intents). */
  intentMessage(terms: IntentTerms): Uint8Array;
  /** Whether `signature` is the bettor's Ed25519 signature of the intent text of `terms` (false for malformed input). */
  intentSigned(terms: IntentTerms, signature: Uint8Array): boolean;
  /**
   * A placement for the bettor's wallet to sign and send (docs/gateway-api.md#bet-with-your-wallet): the bettor pays the
   * fee and signs for its stake; the relayer's signature is on it (it pays the rent and, without signed
   * prices, attests the entry price). Nothing is sent.
   */
  walletPlacement(terms: WalletPlacementTerms): Promise<WalletPlacement>;
  closeBet(ref: BetRef, exitPrice: bigint): Promise<Closed>;
  /** close_bet + place_bet (same bettor, side, amount) in one transaction (Profile B tie replay) */
  closeAndReplace(ref: BetRef, exitPrice: bigint, bettor: Keypair, entryPrice: bigint): Promise<{ closed: Closed; placed: Placed }>;
  /** refund_expired: the stake back, allowed once expireTime + refundAfterSeconds has passed */
  refundExpired(ref: BetRef): Promise<Closed>;
  /** closes a settled bet's account, its rent back to its payer; false when it was already gone */
  reclaimBet(ref: BetRef): Promise<boolean>;
  setPaused(paused: boolean): Promise<string>;
  /**
   * Grants 5 SOL and 10000 tokens (to the address's ATA, created when missing) in one
   * transaction; every call is a grant of its own. Resolves with the grant's signature.
   */
  faucet(address: PublicKey): Promise<string>;
  balances(address: PublicKey): Promise<Balance>;
  vaultBalance(): Promise<bigint>;
  genesisHash(): Promise<string>;
  clusterKind(): Promise<ClusterKind>;
  /** one cheap round trip (health checks); rejects with ChainUnavailable when the chain does not answer */
  ping(): Promise<void>;
  /** what the landing engine has done so far, and the transactions landing now (docs/architecture.md#landing-transactions); optional */
  landing?(): LandingReport;
}

/** The landing engine's counters and its intents not confirmed yet. */
export interface LandingReport {
  /** sendTransaction calls: first sends and rebroadcasts */
  sends: number;
  landed: number;
  failed: number;
  /** signings whose blockhash expired unlanded */
  expired: number;
  /** intents signed again after an expiry */
  resigned: number;
  /** priority fees of the landed transactions, lamports */
  priorityFeeLamports: number;
  /** landing times (ms, first signing to confirmation) of the latest landed intents, oldest first */
  landingMs: readonly number[];
  pending: ReadonlyArray<{ what: string; signature: string; signs: number; ageMs: number }>;
}

/** The chain did not answer, timed out, or answered something that is not JSON-RPC (docs/gateway-api.md#errors: 500 on POST /bet, 503 elsewhere). */
export class ChainUnavailable extends DependencyUnavailable {
  constructor(message: string, options?: { cause?: unknown }) {
    super('chain', message, options);
    this.name = 'ChainUnavailable';
  }
}

/**
 * A transaction the chain took, not confirmed by the caller's deadline: it may still land (the
 * landing engine goes on rebroadcasting it), so the caller must not say it failed. Not an outage.
 */
export class OutcomeUnknown extends Error {
  constructor(
    readonly what: string,
    /** the transaction, as last signed */
    readonly signature: string,
    deadlineMs: number,
  ) {
    super(`${what}: sent as ${signature}, not confirmed within ${deadlineMs} ms; it may still land`);
    this.name = 'OutcomeUnknown';
  }
}

/**
 * A placement that was never sent (docs/gateway-api.md#profile-a-post-apibet): it could not be sent
 * before its caller's answer deadline (the gateway busy, or another gateway landing a transaction
 * for the same bettor), so it never will be. Nothing reached the chain: the caller may retry.
 * Not an outage: the chain may be answering every call.
 */
export class NotSent extends Error {
  constructor(
    readonly what: string,
    /** `busy`: this gateway could not get to it in time; `bettor_busy`: another gateway is landing a transaction for the same bettor */
    readonly reason: 'busy' | 'bettor_busy',
    deadlineMs: number,
  ) {
    super(
      reason === 'busy'
        ? `${what}: not sent; it could not be sent within ${deadlineMs} ms`
        : `${what}: not sent; another gateway was landing a transaction for the same bettor for ${deadlineMs} ms`,
    );
    this.name = 'NotSent';
  }
}

/** The chain answered and refused the transaction for a reason that is not the program's (fee payer short of SOL, a malformed transaction): not an outage, and not the client's fault. */
export class ChainRejected extends Error {
  constructor(
    message: string,
    options?: { cause?: unknown },
    /** the transaction error as the chain reported it (JSON), when there is one */
    readonly txError: unknown = undefined,
    /** index of the failing instruction in its transaction, when the chain says */
    readonly instruction: number | null = null,
  ) {
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
    /** index of the refusing instruction in its transaction */
    readonly instruction: number | null = null,
  ) {
    super(message);
    this.name = 'ProgramRefusal';
  }
}

/** A settlement write (close, refund, replay, reclaim) not sent: the node's leader lease may have passed (docs/architecture.md#the-leader). */
export class NotLeading extends Error {
  constructor(what: string) {
    super(`${what} not sent: this node's leader lease may have passed`);
    this.name = 'NotLeading';
  }
}
