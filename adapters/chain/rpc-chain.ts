/**
 * The gateway's chain port over Solana JSON-RPC (docs/architecture.md#the-chain-mirror; the gateway always
 * talks JSON-RPC, to the local chain or to a real validator, and keeps the chain off the request path).
 *
 * Reads answer from the chain mirror (`mirror/`), kept current by subscriptions. Writes are
 * signed by the key of their role (docs/architecture.md#the-contract: roles are separate): the relayer places,
 * settles and reclaims bets and pays fees and rent; the admin pauses; the mint authority of the
 * local test mint runs the faucet; the upgrade authority initialises. A placement is one send and
 * one (batched) status poll; the new bet comes from the mirror. Closes go through the close
 * batcher, several per transaction.
 */
import * as v from 'valibot';
import { type Keypair, PublicKey, type TransactionInstruction } from '@solana/web3.js';
import { createAssociatedTokenAccountIdempotentInstruction, createMintToInstruction } from '@solana/spl-token';
import { ChainMirror } from './mirror/index.ts';
import { CloseBatcher } from './close-batcher.ts';
import { classifyGenesis } from './cluster.ts';
import {
  PROGRAM_ID,
  betAddress,
  bettorAddress,
  closeBetIx,
  configAddress,
  initializeIx,
  placeBetIx,
  reclaimBetIx,
  refundExpiredIx,
  setPausedIx,
  tokenAccountOf,
  withdrawIx,
} from './codec.ts';
import { fundFromFaucet, uniqueMemo } from './faucet.ts';
import {
  ChainUnavailable,
  NotLeading,
  ProgramRefusal,
  type Balance,
  type BetAccount,
  type BetRef,
  type BetTransactions,
  type BettorState,
  type ChainPort,
  type Closed,
  type ClusterKind,
  type ContractConfig,
  type InitParams,
  type PlaceBet,
  type Placed,
} from './port.ts';
import { WsPubSub, type PubSub } from './pubsub.ts';
import { HttpTransport, RpcClient, RpcError, type JsonRpcTransport } from './rpc-client.ts';
import { TxSender } from './tx-sender.ts';
import { log as rootLog, type Logger } from '../../kernel/log.ts';

/** getSignaturesForAddress as the chain answers it (newest first). */
const SignatureHistory = v.array(v.object({ signature: v.string(), slot: v.number(), err: v.optional(v.unknown()) }));
/** JSON-RPC: a method the node does not serve. */
const METHOD_NOT_FOUND = -32601;

/** Sort key of reclaims in the close batcher: after any close. */
const RECLAIM_AFTER_CLOSES = 2n ** 63n;

/** tokens minted into the vault when the adapter initialises a contract (1,000,000 of a 6-decimal mint) */
export const VAULT_FUNDING = 1_000_000n * 1_000_000n;

/** Program error codes the adapter acts on. */
const ERR = { invalidPda: 6004, betAlreadyClosed: 6021, notInitialized: 6001 } as const;

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
  /** tokens minted into the vault on initialize (default VAULT_FUNDING; 0 skips) */
  vaultFunding?: bigint;
  /** closes per settlement transaction */
  closesPerTransaction?: number;
  log?: Logger;
}

/** The PubSub URL web3.js would derive from an RPC URL: the same host, port + 1, ws(s). */
export function pubsubUrlOf(rpcUrl: string): string {
  const u = new URL(rpcUrl);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  if (u.port) u.port = String(Number(u.port) + 1);
  return u.toString();
}

/** How long a write waits for its notification before the mirror reads the accounts itself. */
const CATCH_UP_MS = 1_500;

/** ChainPort over JSON-RPC. */
export class RpcChain implements ChainPort {
  readonly rpc: RpcClient;
  readonly mirror: ChainMirror;
  private readonly sender: TxSender;
  private readonly keys: ChainKeys;
  private readonly batcher: CloseBatcher;
  private readonly transport: JsonRpcTransport;
  private statics: { mint: PublicKey; vault: PublicKey } | null = null;
  /** placements per bettor in flight (serialised: each needs the previous one's seq) */
  private readonly placing = new Map<string, Promise<void>>();
  private genesis: string | null = null;
  private mayAct: () => boolean = () => true;

  constructor(private readonly opts: RpcChainOptions) {
    const transport = opts.transport ?? (opts.url ? new HttpTransport(opts.url, opts.timeoutMs ?? 10_000) : null);
    if (!transport) throw new Error('RpcChain needs a url or a transport');
    this.transport = transport;
    this.rpc = new RpcClient(transport);
    this.keys = opts.keys;
    const log = opts.log ?? rootLog;
    const pubsub = opts.pubsub ?? new WsPubSub(opts.wsUrl ?? pubsubUrlOf(opts.url ?? ''), log);
    this.mirror = new ChainMirror({ rpc: this.rpc, pubsub, programId: PROGRAM_ID, log, startTimeoutMs: opts.timeoutMs ?? 10_000 });
    this.sender = new TxSender(this.rpc, { confirmTimeoutMs: opts.confirmTimeoutMs ?? 30_000, pollMs: opts.pollMs ?? 200, blockhashTtlMs: 2_000 });
    this.batcher = new CloseBatcher(
      (ixs) => {
        this.settling('close_bet');
        return this.sender.land('close_bet', ixs, this.keys.relayer);
      },
      { perTransaction: opts.closesPerTransaction ?? 7 },
    );
  }

  /**
   * Settlement writes (closes, refunds, replays, reclaims) ask `mayAct` right before each is sent:
   * a node whose leader lease may have passed sends none (a queued close included).
   */
  guardSettlement(mayAct: () => boolean): void {
    this.mayAct = mayAct;
  }

  private settling(what: string): void {
    if (!this.mayAct()) throw new NotLeading(what);
  }

  /** The relayer's address (the fee payer of bets and closes). */
  get relayer(): PublicKey {
    return this.keys.relayer.publicKey;
  }

  async readConfig(): Promise<ContractConfig | null> {
    const config = await this.mirror.config();
    if (config) this.statics ??= { mint: new PublicKey(config.mint), vault: new PublicKey(config.vault) };
    return config;
  }

  readBet(ref: BetRef): Promise<BetAccount | null> {
    return this.mirror.bet(ref);
  }

  async rereadBet(ref: BetRef): Promise<BetAccount | null> {
    await this.mirror.refresh([betAddress(ref)]);
    return this.mirror.peekBet(ref);
  }

  readBettorState(bettor: PublicKey): Promise<BettorState | null> {
    return this.mirror.bettor(bettor);
  }

  async rereadBettorState(bettor: PublicKey): Promise<BettorState | null> {
    await this.mirror.refresh([bettorAddress(bettor)]);
    return this.mirror.peekBettor(bettor);
  }

  async scanOpenBets(): Promise<BetAccount[]> {
    return (await this.mirror.openBets()).sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  scanBetsOf(bettor: PublicKey): Promise<BetAccount[]> {
    return this.mirror.betsOf(bettor);
  }

  /**
   * A bet account is written by its placement, its close and (maybe) its reclaim, in that order,
   * and by nothing else that succeeds: its oldest successful signature is the placement, the next
   * the close.
   */
  async betTransactions(ref: BetRef): Promise<BetTransactions> {
    let history: v.InferOutput<typeof SignatureHistory>;
    try {
      history = await this.rpc.call('getSignaturesForAddress', [betAddress(ref).toBase58(), { limit: 50, commitment: 'confirmed' }], SignatureHistory);
    } catch (err) {
      if (err instanceof RpcError && err.code === METHOD_NOT_FOUND) return { placeTx: null, closeTx: null };
      throw err;
    }
    const landed = history.filter((h) => h.err === null || h.err === undefined).reverse();
    return { placeTx: landed[0]?.signature ?? null, closeTx: landed[1]?.signature ?? null };
  }

  /** Creates the vault (ATA of the config PDA), funds it, and initialises the contract — one transaction, signed by the upgrade authority. */
  async initialize(params: InitParams): Promise<string> {
    const authority = this.keys.upgradeAuthority;
    if (!authority) throw new Error("initialize needs the program's upgrade authority key");
    const admin = this.keys.admin?.publicKey ?? this.opts.adminAddress;
    if (!admin) throw new Error("initialize needs the admin's address");
    const mint = this.opts.mint ?? (await this.requireStatics()).mint;
    const config = configAddress();
    const vault = tokenAccountOf(mint, config);
    const funding = this.opts.vaultFunding ?? VAULT_FUNDING;
    const minter = this.keys.mintAuthority;
    const ixs: TransactionInstruction[] = [createAssociatedTokenAccountIdempotentInstruction(authority.publicKey, vault, config, mint)];
    if (funding > 0n && minter) ixs.push(createMintToInstruction(mint, vault, minter.publicKey, funding));
    ixs.push(initializeIx({ authority: authority.publicKey, admin, relayer: this.relayer, mint, vault }, params));
    const { signature, slot } = await this.sender.land('initialize', ixs, authority, minter && funding > 0n ? [minter] : []);
    await this.caughtUp(slot, [config]);
    return signature;
  }

  async placeBet(bet: PlaceBet): Promise<Placed> {
    const { mint, vault } = await this.requireStatics();
    const bettor = bet.stake.kind === 'signer' ? bet.stake.bettor.publicKey : bet.stake.bettor;
    const signers = bet.stake.kind === 'signer' ? [bet.stake.bettor] : [];
    const bettorToken = tokenAccountOf(mint, bettor);
    return this.withFreshSeq(bettor, async (seq) => {
      const ix = placeBetIx(
        { bettor, seq, bettorToken, vault, relayer: this.relayer, delegated: bet.stake.kind === 'delegate' },
        bet.side,
        bet.amount,
        bet.entryPrice,
      );
      const { signature, slot } = await this.sender.land('place_bet', [ix, uniqueMemo('bet')], this.keys.relayer, signers);
      return { signature, bet: await this.landedBet({ bettor: bettor.toBase58(), seq }, slot) };
    });
  }

  async closeBet(ref: BetRef, exitPrice: bigint): Promise<Closed> {
    const held = await this.mirror.bet(ref);
    if (held && held.status !== 0) return { signature: '', status: held.status, exitPrice: held.exitPrice, already: true };
    const { mint, vault } = await this.requireStatics();
    const bettor = new PublicKey(ref.bettor);
    const ix = closeBetIx({ ref, bettorToken: tokenAccountOf(mint, bettor), vault, relayer: this.relayer }, exitPrice);
    try {
      const { signature, slot } = await this.batcher.submit({ expireTime: held?.expireTime ?? 0n, instruction: ix });
      const closed = await this.landedBet(ref, slot);
      return { signature, status: closed.status, exitPrice: closed.exitPrice, already: false };
    } catch (err) {
      return this.alreadyClosedOr(ref, err);
    }
  }

  async closeAndReplace(ref: BetRef, exitPrice: bigint, bettor: Keypair, entryPrice: bigint): Promise<{ closed: Closed; placed: Placed }> {
    const { mint, vault } = await this.requireStatics();
    const bet = await this.mirror.bet(ref);
    if (!bet) throw new ProgramRefusal(6023, 'InvalidAccountData', `bet ${ref.bettor}/${ref.seq} does not exist`);
    const bettorToken = tokenAccountOf(mint, bettor.publicKey);
    return this.withFreshSeq(bettor.publicKey, async (seq) => {
      const ixs = [
        closeBetIx({ ref, bettorToken, vault, relayer: this.relayer }, exitPrice),
        placeBetIx({ bettor: bettor.publicKey, seq, bettorToken, vault, relayer: this.relayer, delegated: false }, bet.side, bet.amount, entryPrice),
      ];
      this.settling('close_bet + place_bet');
      const { signature, slot } = await this.sender.land('close_bet + place_bet', [...ixs, uniqueMemo('replay')], this.keys.relayer, [bettor]);
      const [closedBet, placedBet] = [await this.landedBet(ref, slot), await this.landedBet({ bettor: bettor.publicKey.toBase58(), seq }, slot)];
      return { closed: { signature, status: closedBet.status, exitPrice: closedBet.exitPrice, already: false }, placed: { signature, bet: placedBet } };
    });
  }

  async refundExpired(ref: BetRef): Promise<Closed> {
    const held = await this.mirror.bet(ref);
    if (held && held.status !== 0) return { signature: '', status: held.status, exitPrice: held.exitPrice, already: true };
    const { mint, vault } = await this.requireStatics();
    const ix = refundExpiredIx({ ref, bettorToken: tokenAccountOf(mint, new PublicKey(ref.bettor)), vault });
    try {
      this.settling('refund_expired');
      const { signature, slot } = await this.sender.land('refund_expired', [ix], this.keys.relayer);
      const closed = await this.landedBet(ref, slot);
      return { signature, status: closed.status, exitPrice: closed.exitPrice, already: false };
    } catch (err) {
      return this.alreadyClosedOr(ref, err);
    }
  }

  async reclaimBet(ref: BetRef): Promise<boolean> {
    const bet = await this.mirror.bet(ref);
    if (!bet) return false;
    // packed with the closes, after every close waiting (a reclaim is never urgent)
    await this.batcher.submit({ expireTime: RECLAIM_AFTER_CLOSES, instruction: reclaimBetIx({ ref, payer: new PublicKey(bet.payer), relayer: this.relayer }) });
    this.mirror.forgetBet(ref);
    return true;
  }

  async setPaused(paused: boolean): Promise<string> {
    const admin = this.keys.admin;
    if (!admin) throw new Error('set_paused needs the admin key');
    const { signature, slot } = await this.sender.land('set_paused', [setPausedIx(admin.publicKey, paused)], admin);
    await this.caughtUp(slot, [configAddress()]);
    return signature;
  }

  /** Admin: moves `amount` out of the vault to `destination` (a token account of the mint); the program allows only the surplus above the open liability. */
  async withdraw(amount: bigint, destination: PublicKey): Promise<string> {
    const admin = this.keys.admin;
    if (!admin) throw new Error('withdraw needs the admin key');
    const { vault } = await this.requireStatics();
    const { signature, slot } = await this.sender.land('withdraw', [withdrawIx({ admin: admin.publicKey, vault, destination }, amount)], admin);
    await this.caughtUp(slot, [vault, destination]);
    return signature;
  }

  /** Every call is a grant of its own (docs/gateway-api.md#faucet): six calls at once are six grants. */
  faucet(address: PublicKey): Promise<string> {
    return this.grant(address);
  }

  private async grant(address: PublicKey): Promise<string> {
    const minter = this.keys.mintAuthority;
    if (!minter) throw new Error("the faucet needs the test mint's authority key");
    const mint = this.statics?.mint ?? (await this.readConfig().then((c) => (c ? new PublicKey(c.mint) : this.opts.mint)));
    if (!mint) throw new Error('faucet: no mint known (contract not initialised and no mint configured)');
    const signature = await fundFromFaucet(this.rpc, this.sender, minter, mint, address);
    // the balance a client reads next includes the grant
    const status = await this.sender.confirm('faucet grant', signature);
    await this.caughtUp(status.slot, [tokenAccountOf(mint, address)]);
    return signature;
  }

  async ping(): Promise<void> {
    await this.rpc.call('getSlot', [{ commitment: 'confirmed' }], v.number());
  }

  async balances(address: PublicKey): Promise<Balance> {
    await this.requireStatics();
    const [lamports, tokenUnits] = await Promise.all([this.mirror.lamports(address), this.mirror.tokenUnitsOf(address)]);
    return { lamports, tokenUnits };
  }

  async vaultBalance(): Promise<bigint> {
    const { vault } = await this.requireStatics();
    return this.mirror.tokenAmount(vault);
  }

  async genesisHash(): Promise<string> {
    this.genesis ??= await this.rpc.call('getGenesisHash', [], v.pipe(v.string(), v.minLength(32)));
    return this.genesis;
  }

  async clusterKind(): Promise<ClusterKind> {
    return classifyGenesis(await this.genesisHash(), this.opts.knownLocalGenesis ?? []);
  }

  /** Closes the subscriptions and pooled connections. */
  close(): void {
    this.mirror.close();
    this.transport.close?.();
  }

  /**
   * Runs a placement at the bettor's next seq as the mirror knows it, one placement per bettor at
   * a time in this process (the next one sees the first's bettor state); when the program says the
   * address is not the next one (the mirror was behind: another gateway, a lost notification),
   * reads the bettor state and tries once more.
   */
  private withFreshSeq<T>(bettor: PublicKey, place: (seq: bigint) => Promise<T>): Promise<T> {
    const key = bettor.toBase58();
    const previous = this.placing.get(key) ?? Promise.resolve();
    const run = previous.then(() => this.placeAtSeq(bettor, place));
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.placing.set(key, settled);
    // `settled` never rejects
    settled.then(
      () => {
        if (this.placing.get(key) === settled) this.placing.delete(key);
      },
      () => undefined,
    );
    return run;
  }

  private async placeAtSeq<T>(bettor: PublicKey, place: (seq: bigint) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const seq = (await this.mirror.bettor(bettor))?.betCount ?? 0n;
      try {
        return await place(seq);
      } catch (err) {
        if (!(err instanceof ProgramRefusal) || err.code !== ERR.invalidPda || attempt >= 2) throw err;
        await this.mirror.refresh([bettorAddress(bettor)]);
      }
    }
  }

  /**
   * The bet at `ref` as the transaction of `slot` left it, with its bettor state: from their own
   * notifications, or read at that slot when those are late (never from another account's
   * notification of the same slot: many bets land in one slot).
   */
  private async landedBet(ref: BetRef, slot: number): Promise<BetAccount> {
    await this.caughtUp(slot, [betAddress(ref), bettorAddress(new PublicKey(ref.bettor))]);
    const bet = this.mirror.peekBet(ref);
    if (!bet) throw new ChainUnavailable(`bet ${ref.bettor}/${ref.seq} confirmed at slot ${slot} but not found when read at that slot`);
    return bet;
  }

  private caughtUp(slot: number, accounts: PublicKey[]): Promise<void> {
    return this.mirror.written(accounts, slot, CATCH_UP_MS);
  }

  /** A close that failed because the bet was already closed is that close's outcome (a retry, or another gateway). */
  private async alreadyClosedOr(ref: BetRef, err: unknown): Promise<Closed> {
    if (!(err instanceof ProgramRefusal) || err.code !== ERR.betAlreadyClosed) throw err;
    await this.mirror.refresh([betAddress(ref)]);
    const bet = this.mirror.peekBet(ref);
    if (!bet || bet.status === 0) throw err;
    return { signature: '', status: bet.status, exitPrice: bet.exitPrice, already: true };
  }

  private async requireStatics(): Promise<{ mint: PublicKey; vault: PublicKey }> {
    if (this.statics) return this.statics;
    const config = await this.readConfig();
    if (!config || !this.statics) throw new ProgramRefusal(ERR.notInitialized, 'NotInitialized', 'The config account is not initialised');
    return this.statics;
  }
}
