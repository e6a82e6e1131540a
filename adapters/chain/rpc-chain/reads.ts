/**
 * The reading half of the JSON-RPC chain port (docs/architecture.md#the-chain-mirror): how the port
 * is wired (RPC client, mirror, sender, close batcher), the reads that answer from the mirror or
 * the chain, the settlement guard, and waiting for the mirror to hold what a write left.
 */
import * as v from 'valibot';
import { PublicKey } from '@solana/web3.js';
import { ChainMirror } from '../mirror/index.ts';
import { CloseBatcher } from '../close-batcher.ts';
import { classifyGenesis } from '../cluster.ts';
import { PROGRAM_ID, betAddress, bettorAddress } from '../codec.ts';
import {
  ChainUnavailable,
  NotLeading,
  ProgramRefusal,
  type Balance,
  type BetAccount,
  type BetRef,
  type BetTransactions,
  type BettorState,
  type ClusterKind,
  type ContractConfig,
  type LandingReport,
} from '../port.ts';
import { WsPubSub } from '../pubsub.ts';
import { observedPubSub } from '../observed-pubsub.ts';
import { HttpTransport, RpcClient, RpcError, type JsonRpcTransport } from '../rpc-client.ts';
import { TxSender } from '../tx-sender.ts';
import { log as rootLog } from '../../../kernel/log.ts';
import { pubsubUrlOf, type ChainKeys, type RpcChainOptions } from './options.ts';

/** getSignaturesForAddress as the chain answers it (newest first). */
const SignatureHistory = v.array(v.object({ signature: v.string(), slot: v.number(), err: v.optional(v.unknown()) }));
/** JSON-RPC: a method the node does not serve. */
const METHOD_NOT_FOUND = -32601;

/** Program error codes the adapter acts on. */
export const ERR = { invalidPda: 6004, betAlreadyClosed: 6021, notInitialized: 6001, priceTickMissing: 6040, priceTickReplayed: 6049 } as const;

/** How long a write waits for its notification before the mirror reads the accounts itself. */
const CATCH_UP_MS = 1_500;

/** The port's wiring and reads; the writes are added by the classes built on it. */
export class RpcChainReads {
  readonly rpc: RpcClient;
  readonly mirror: ChainMirror;
  protected readonly sender: TxSender;
  protected readonly keys: ChainKeys;
  protected readonly batcher: CloseBatcher;
  private readonly transport: JsonRpcTransport;
  protected statics: { mint: PublicKey; vault: PublicKey } | null = null;
  private genesis: string | null = null;
  private mayAct: () => boolean = () => true;

  constructor(protected readonly opts: RpcChainOptions) {
    const transport = opts.transport ?? (opts.url ? new HttpTransport(opts.url, opts.timeoutMs ?? 10_000) : null);
    if (!transport) throw new Error('RpcChain needs a url or a transport');
    this.transport = transport;
    this.rpc = new RpcClient(transport);
    this.keys = opts.keys;
    const log = opts.log ?? rootLog;
    const connection = opts.pubsub ?? new WsPubSub(opts.wsUrl ?? pubsubUrlOf(opts.url ?? ''), log);
    const pubsub = opts.observePubSub ? observedPubSub(connection, opts.observePubSub) : connection;
    this.mirror = new ChainMirror({ rpc: this.rpc, pubsub, programId: PROGRAM_ID, log, startTimeoutMs: opts.timeoutMs ?? 10_000 });
    this.sender = new TxSender(this.rpc, {
      confirmTimeoutMs: opts.confirmTimeoutMs ?? 30_000,
      pollMs: opts.pollMs ?? 200,
      blockhashTtlMs: 2_000,
      ...(opts.resendMs ? { resendMs: opts.resendMs } : {}),
      ...(opts.intents ? { intents: opts.intents } : {}),
      ...(opts.computeBudget ? { budget: opts.computeBudget } : {}),
      log,
      pubsub,
    });
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

  protected settling(what: string): void {
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

  async ping(): Promise<void> {
    await this.rpc.call('getSlot', [{ commitment: 'confirmed' }], v.number());
  }

  async balances(address: PublicKey): Promise<Balance> {
    await this.requireStatics();
    const [lamports, tokenUnits] = await Promise.all([this.mirror.lamports(address), this.mirror.tokenUnitsOf(address)]);
    return { lamports, tokenUnits };
  }

  heldVersion(): number | undefined {
    return this.mirror.heldVersion();
  }

  heldConfig(): ContractConfig | null | undefined {
    const config = this.mirror.heldConfig();
    if (config) this.statics ??= { mint: new PublicKey(config.mint), vault: new PublicKey(config.vault) };
    return config;
  }

  heldVaultBalance(): bigint | undefined {
    return this.statics ? this.mirror.heldTokenAmount(this.statics.vault) : undefined;
  }

  heldBalances(address: PublicKey): Balance | undefined {
    if (!this.statics) return undefined;
    const lamports = this.mirror.heldLamports(address);
    const tokenUnits = this.mirror.heldTokenUnitsOf(address);
    return lamports === undefined || tokenUnits === undefined ? undefined : { lamports, tokenUnits };
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

  /** The landing engine's counters and the transactions landing now. */
  landing(): LandingReport {
    return { ...this.sender.stats, pending: this.sender.pending() };
  }

  /** Closes the subscriptions and pooled connections. */
  close(): void {
    this.mirror.close();
    this.transport.close?.();
  }

  /**
   * The bet at `ref` as the transaction of `slot` left it, with its bettor state: from their own
   * notifications, or read at that slot when those are late (never from another account's
   * notification of the same slot: many bets land in one slot).
   */
  protected async landedBet(ref: BetRef, slot: number): Promise<BetAccount> {
    await this.caughtUp(slot, [betAddress(ref), bettorAddress(new PublicKey(ref.bettor))]);
    const bet = this.mirror.peekBet(ref);
    if (!bet) throw new ChainUnavailable(`bet ${ref.bettor}/${ref.seq} confirmed at slot ${slot} but not found when read at that slot`);
    return bet;
  }

  protected caughtUp(slot: number, accounts: PublicKey[]): Promise<void> {
    return this.mirror.written(accounts, slot, CATCH_UP_MS);
  }

  protected async requireStatics(): Promise<{ mint: PublicKey; vault: PublicKey }> {
    if (this.statics) return this.statics;
    const config = await this.readConfig();
    if (!config || !this.statics) throw new ProgramRefusal(ERR.notInitialized, 'NotInitialized', 'The config account is not initialised');
    return this.statics;
  }
}
