/**
 * The gateway's mirror of the chain (docs/architecture.md#the-chain-mirror: the chain is off the request path): the program's
 * accounts (config, bets, bettor states), the token balances of the contract's mint (the vault's
 * and every bettor's) and the SOL balances of the wallets asked about, held in memory with the
 * slot each value is known at. It is fed by subscriptions (`programSubscribe` on the program and,
 * filtered by mint, on the token program; `accountSubscribe` per wallet) and by a full read at
 * start and after every dropped connection (re-sync). Reads answer from memory; a wallet never
 * seen is read once (concurrent askers share the read) and then watched.
 *
 * While the subscriptions are down (the chain unreachable), reads fail with ChainUnavailable after
 * a short grace instead of answering stale values.
 *
 * This file holds the mirror's reads; what it holds is in holdings.ts, how it is fed in sync.ts,
 * the wallets it watches in wallets.ts.
 *
 * @example
 *   const mirror = new ChainMirror({ rpc, pubsub, programId, log });
 *   await mirror.start();
 *   mirror.config(); mirror.openBets(); await mirror.lamports(wallet);
 */
import type { PublicKey } from '@solana/web3.js';
import type { Logger } from '../../../kernel/log.ts';
import { nameOf } from '../account-layout.ts';
import { betAddressName, bettorAddressName, tokenAccountName } from '../codec.ts';
import { ChainUnavailable, type BetAccount, type BetRef, type BettorState, type ContractConfig } from '../port.ts';
import type { PubSub } from '../pubsub.ts';
import type { RpcClient } from '../rpc-client.ts';
import { MirrorHoldings } from './holdings.ts';
import { MirrorSync } from './sync.ts';
import { WalletWatch } from './wallets.ts';

/** How the mirror is set up. */
export interface MirrorOptions {
  rpc: RpcClient;
  pubsub: PubSub;
  programId: PublicKey;
  log: Logger;
  /** wallets whose SOL balance is watched at most (least recently asked dropped first) [20000] */
  maxWallets?: number;
  /** how long reads keep answering while the subscriptions reconnect [1000 ms] */
  staleGraceMs?: number;
  /** how long the first subscription may take to be acknowledged before reads fail [10000 ms] */
  startTimeoutMs?: number;
}

/** The mirror; `start()` before reading. */
export class ChainMirror {
  private readonly held: MirrorHoldings;
  private readonly wallets: WalletWatch;
  private readonly feed: MirrorSync;
  /** the token account name of each owner key asked about by a held read */
  private readonly tokenAccountNames = new WeakMap<PublicKey, { mint: PublicKey; name: string }>();

  constructor(private readonly o: MirrorOptions) {
    this.held = new MirrorHoldings(o.programId, o.log);
    this.wallets = new WalletWatch(o.rpc, o.pubsub, o.log, this.held, o.maxWallets ?? 20_000);
    this.feed = new MirrorSync({ ...o, holdings: this.held, wallets: this.wallets });
    o.pubsub.onResync(() => {
      this.o.log.info('chain mirror re-syncing after a dropped subscription');
      void this.sync().catch((err: unknown) => this.o.log.warn({ err: (err as Error).message }, 'chain mirror re-sync failed; retried on the next read'));
    });
  }

  /** Subscribes and reads everything once; safe to call again (the first call's work is shared; a failed start is retried). */
  start(): Promise<void> {
    return this.feed.start();
  }

  /** Reads the program's accounts, the mint's token accounts and the watched wallets again. */
  sync(): Promise<void> {
    return this.feed.sync();
  }

  /**
   * Resolves once the mirror holds each of these accounts as a transaction of `slot` left them:
   * from their own notifications (never another account's notification of the same slot), or,
   * when those are late, from a read of the chain at that slot or later.
   */
  async written(addresses: PublicKey[], slot: number, timeoutMs: number): Promise<void> {
    const names = addresses.map((a) => nameOf(a));
    const seen = await Promise.all(names.map((name) => this.held.heldAt(name, slot, timeoutMs)));
    const late = addresses.filter((_, i) => !seen[i]);
    if (late.length > 0) await this.refresh(late, slot);
  }

  /** Whether the subscriptions are open, or have been down no longer than the grace. */
  private current(): boolean {
    return this.o.pubsub.status() === 'open' || Date.now() - this.o.pubsub.statusSince() <= (this.o.staleGraceMs ?? 1_000);
  }

  /** Throws ChainUnavailable when the subscriptions have been down longer than the grace. */
  private fresh(): void {
    if (!this.current()) throw new ChainUnavailable('the chain is unreachable (its subscriptions are down); values held may be stale');
  }

  /** Whether a read can answer from memory now, without waiting: started, and current. */
  private heldNow(): boolean {
    return this.feed.started && this.current();
  }

  private async ready(): Promise<void> {
    await this.start();
    this.fresh();
  }

  async config(): Promise<ContractConfig | null> {
    await this.ready();
    return this.held.cfg?.value ?? null;
  }

  async bet(ref: BetRef): Promise<BetAccount | null> {
    await this.ready();
    return this.held.bets.get(betAddressName(ref))?.value ?? null;
  }

  /** The bet held for `ref` without waiting or checking freshness (null when none). */
  peekBet(ref: BetRef): BetAccount | null {
    return this.held.bets.get(betAddressName(ref))?.value ?? null;
  }

  /** Resolves with the bet for `ref` once the mirror holds it (at once if it does), or null after `timeoutMs`. */
  async betAppears(ref: BetRef, timeoutMs: number): Promise<BetAccount | null> {
    await this.held.heldAt(betAddressName(ref), 0, timeoutMs);
    return this.peekBet(ref);
  }

  /** The bettor state held for `bettor` without waiting or checking freshness (null when none). */
  peekBettor(bettor: PublicKey): BettorState | null {
    return this.held.bettors.get(bettorAddressName(nameOf(bettor)))?.value ?? null;
  }

  async bettor(bettor: PublicKey): Promise<BettorState | null> {
    await this.ready();
    return this.held.bettors.get(bettorAddressName(nameOf(bettor)))?.value ?? null;
  }

  async openBets(): Promise<BetAccount[]> {
    await this.ready();
    return [...this.held.bets.values()].map((b) => b.value).filter((b) => b.status === 0);
  }

  async betsOf(bettor: PublicKey): Promise<BetAccount[]> {
    await this.ready();
    const key = bettor.toBase58();
    return [...this.held.bets.values()]
      .map((b) => b.value)
      .filter((b) => b.bettor === key)
      .sort((a, b) => (a.seq < b.seq ? -1 : 1));
  }

  /** Token units held by the token account at `address` (0 when it does not exist). */
  async tokenAmount(address: PublicKey): Promise<bigint> {
    await this.ready();
    return this.held.tokens.get(nameOf(address))?.value ?? 0n;
  }

  /** Token units `owner` holds in its associated token account of the mint. */
  async tokenUnitsOf(owner: PublicKey): Promise<bigint> {
    await this.ready();
    const mint = this.feed.mint;
    return mint ? (this.held.tokens.get(tokenAccountName(mint, owner))?.value ?? 0n) : 0n;
  }

  /** SOL of a wallet: from memory once watched; the first ask reads it (shared by concurrent askers) and starts watching it. */
  async lamports(wallet: PublicKey): Promise<bigint> {
    await this.ready();
    return this.wallets.lamports(nameOf(wallet));
  }

  /**
   * The reads above answered from memory without waiting (a read route's fast path), or
   * undefined when the async read would wait or fail: not started, subscriptions down, a wallet
   * not watched yet. A held object is replaced, never changed, when its account changes.
   */
  /** A number that changes whenever a held value changes; undefined when reads cannot answer from memory now. */
  heldVersion(): number | undefined {
    return this.heldNow() ? this.held.changes : undefined;
  }

  heldConfig(): ContractConfig | null | undefined {
    return this.heldNow() ? (this.held.cfg?.value ?? null) : undefined;
  }

  heldTokenAmount(address: PublicKey): bigint | undefined {
    return this.heldNow() ? (this.held.tokens.get(nameOf(address))?.value ?? 0n) : undefined;
  }

  heldTokenUnitsOf(owner: PublicKey): bigint | undefined {
    const mint = this.feed.mint;
    if (!this.heldNow() || !mint) return undefined;
    // by the owner key's identity: deriving (or looking up) the token account by name costs more than the read
    let account = this.tokenAccountNames.get(owner);
    if (account?.mint !== mint) this.tokenAccountNames.set(owner, (account = { mint, name: tokenAccountName(mint, owner) }));
    return this.held.tokens.get(account.name)?.value ?? 0n;
  }

  heldLamports(wallet: PublicKey): bigint | undefined {
    return this.heldNow() ? this.wallets.peek(nameOf(wallet)) : undefined;
  }

  /** Forgets a bet whose account this process closed (reclaim_bet): the chain does not announce a closed account. */
  forgetBet(ref: BetRef): void {
    this.held.bets.delete(betAddressName(ref));
  }

  /**
   * Reads these accounts now (program accounts and token accounts of the mint), after a write
   * whose notification did not come in time; with `minSlot`, as of that slot or later (a node
   * still behind it is asked again for a few seconds).
   */
  refresh(addresses: PublicKey[], minSlot?: number): Promise<void> {
    return this.feed.refresh(addresses, minSlot);
  }

  /** How much the mirror holds (operators, metrics). */
  stats(): { bets: number; openBets: number; bettors: number; tokenAccounts: number; wallets: number; slot: number; subscriptions: string } {
    let open = 0;
    for (const b of this.held.bets.values()) if (b.value.status === 0) open++;
    return {
      bets: this.held.bets.size,
      openBets: open,
      bettors: this.held.bettors.size,
      tokenAccounts: this.held.tokens.size,
      wallets: this.wallets.size,
      slot: this.held.slotSeen,
      subscriptions: this.o.pubsub.status(),
    };
  }

  close(): void {
    this.wallets.close();
    this.o.pubsub.close();
  }
}
