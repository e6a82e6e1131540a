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
 * @example
 *   const mirror = new ChainMirror({ rpc, pubsub, programId, log });
 *   await mirror.start();
 *   mirror.config(); mirror.openBets(); await mirror.lamports(wallet);
 */
import * as v from 'valibot';
import { PublicKey } from '@solana/web3.js';
import { TOKEN_PROGRAM_ID } from '@solana/spl-token';
import type { Logger } from '../../kernel/log.ts';
import { nameOf } from './account-layout.ts';
import { accountKind, betAddress, bettorAddress, decodeBet, decodeBettorState, decodeConfig, tokenAccountOf } from './codec.ts';
import { ChainUnavailable, type BetAccount, type BetRef, type BettorState, type ContractConfig } from './port.ts';
import type { PubSub, Subscription } from './pubsub.ts';
import { RpcError, type RpcClient } from './rpc-client.ts';

const AccountJson = v.object({ data: v.tuple([v.string(), v.literal('base64')]), lamports: v.number(), owner: v.string() });
const Keyed = v.object({ pubkey: v.string(), account: AccountJson });
const WithSlot = <T extends v.GenericSchema>(value: T) => v.object({ context: v.object({ slot: v.number() }), value });
const ProgramAccounts = WithSlot(v.array(Keyed));
const ProgramNotification = WithSlot(Keyed);
const AccountNotification = WithSlot(AccountJson);
const Multiple = WithSlot(v.array(v.nullable(AccountJson)));

type RawAccount = v.InferOutput<typeof AccountJson>;
interface Known<T> {
  slot: number;
  value: T;
}

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

const TOKEN_ACCOUNT_SIZE = 165;
/** JSON-RPC: the node has not reached the `minContextSlot` asked for yet. */
const MIN_CONTEXT_SLOT_NOT_REACHED = -32016;
/** How long a read at a slot waits for a node behind it. */
const REFRESH_BEHIND_MS = 3_000;
const tokenAmountOf = (data: Uint8Array): bigint => (data.length >= 72 ? Buffer.from(data.buffer, data.byteOffset, data.length).readBigUInt64LE(64) : 0n);
const bytesOf = (a: RawAccount) => Buffer.from(a.data[0], 'base64');

/** The mirror; `start()` before reading. */
export class ChainMirror {
  private cfg: Known<ContractConfig | null> | null = null;
  private readonly bets = new Map<string, Known<BetAccount>>();
  private readonly bettors = new Map<string, Known<BettorState | null>>();
  private readonly tokens = new Map<string, Known<bigint>>();
  private readonly wallets = new Map<string, { known: Known<bigint> | null; sub: Subscription | null; loading: Promise<void> | null }>();
  private mint: PublicKey | null = null;
  private tokenSub: Promise<void> | null = null;
  private starting: Promise<void> | null = null;
  private programSub: Promise<Subscription> | null = null;
  private syncing: Promise<void> | null = null;
  private slotSeen = 0;
  /** slot each config or bettor-state account is known at, by address (bets and token accounts carry their own) */
  private readonly programSlots = new Map<string, number>();
  /** callers waiting for one account's write of a slot, by address */
  private readonly writeWaiters = new Map<string, Array<{ slot: number; resolve: () => void }>>();
  private readonly maxWallets: number;
  private readonly programName: string;

  constructor(private readonly o: MirrorOptions) {
    this.maxWallets = o.maxWallets ?? 20_000;
    this.programName = o.programId.toBase58();
    o.pubsub.onResync(() => {
      this.o.log.info('chain mirror re-syncing after a dropped subscription');
      void this.sync().catch((err: unknown) => this.o.log.warn({ err: (err as Error).message }, 'chain mirror re-sync failed; retried on the next read'));
    });
  }

  /** Subscribes and reads everything once; safe to call again (the first call's work is shared; a failed start is retried). */
  start(): Promise<void> {
    this.starting ??= (async () => {
      // one subscription for every start attempt: it stays pending (and is renewed) while the chain is away
      this.programSub ??= this.o.pubsub.subscribe('programSubscribe', [this.o.programId.toBase58(), { encoding: 'base64', commitment: 'confirmed' }], (r) =>
        this.onProgram(r),
      );
      const subscribed = this.programSub;
      const limit = this.o.startTimeoutMs ?? 10_000;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new ChainUnavailable(`the chain's subscriptions did not open within ${limit} ms`)), limit);
      });
      try {
        await Promise.race([subscribed, late]);
      } finally {
        clearTimeout(timer);
      }
      await this.sync();
    })().catch((err: unknown) => {
      this.starting = null;
      throw err instanceof ChainUnavailable ? err : new ChainUnavailable(`chain mirror could not start: ${(err as Error).message}`, { cause: err });
    });
    return this.starting;
  }

  /** Reads the program's accounts, the mint's token accounts and the watched wallets again. */
  sync(): Promise<void> {
    this.syncing ??= this.readAll().finally(() => {
      this.syncing = null;
    });
    return this.syncing;
  }

  private async readAll(): Promise<void> {
    const programs = await this.o.rpc.call(
      'getProgramAccounts',
      [this.o.programId.toBase58(), { encoding: 'base64', commitment: 'confirmed', withContext: true }],
      ProgramAccounts,
    );
    const seen = new Set<string>();
    let config: Known<ContractConfig | null> = { slot: programs.context.slot, value: null };
    for (const { pubkey, account } of programs.value) {
      seen.add(pubkey);
      const kind = this.apply(pubkey, programs.context.slot, account);
      if (kind === 'config' && this.cfg) config = this.cfg;
    }
    if (config.value === null && (!this.cfg || this.cfg.slot <= programs.context.slot)) this.cfg = config;
    // accounts gone since (reclaimed bets, closed bettor states)
    for (const [address, bet] of this.bets) if (!seen.has(address) && bet.slot <= programs.context.slot) this.bets.delete(address);
    await this.watchMint();
    await this.readTokens();
    const watched = [...this.wallets.keys()];
    for (let i = 0; i < watched.length; i += 100) await this.readWallets(watched.slice(i, i + 100));
  }

  /** Reads every token account of the mint (once the mint is known). */
  private async readTokens(): Promise<void> {
    if (!this.mint) return;
    const tokens = await this.o.rpc.call(
      'getProgramAccounts',
      [TOKEN_PROGRAM_ID.toBase58(), { encoding: 'base64', commitment: 'confirmed', withContext: true, filters: this.mintFilters(this.mint) }],
      ProgramAccounts,
    );
    for (const { pubkey, account } of tokens.value) this.setToken(pubkey, tokens.context.slot, tokenAmountOf(bytesOf(account)));
  }

  private mintFilters(mint: PublicKey) {
    return [{ dataSize: TOKEN_ACCOUNT_SIZE }, { memcmp: { offset: 0, bytes: mint.toBase58() } }];
  }

  /** Once the mint is known (the config exists), watches every token account of it. */
  private watchMint(): Promise<void> {
    const config = this.cfg?.value;
    if (!config || this.tokenSub) return this.tokenSub ?? Promise.resolve();
    this.mint = new PublicKey(config.mint);
    this.tokenSub = this.o.pubsub
      .subscribe(
        'programSubscribe',
        [TOKEN_PROGRAM_ID.toBase58(), { encoding: 'base64', commitment: 'confirmed', filters: this.mintFilters(this.mint) }],
        (r) => {
          const n = v.parse(ProgramNotification, r);
          this.setToken(n.value.pubkey, n.context.slot, tokenAmountOf(bytesOf(n.value.account)));
          this.saw(n.context.slot);
        },
      )
      .then(() => undefined)
      .catch((err: unknown) => {
        this.tokenSub = null;
        throw err;
      });
    return this.tokenSub;
  }

  private onProgram(result: unknown): void {
    const n = v.parse(ProgramNotification, result);
    const kind = this.apply(n.value.pubkey, n.context.slot, n.value.account);
    // the contract was initialised after the mirror started: start following its mint's token accounts
    if (kind === 'config' && !this.tokenSub)
      void this.watchMint()
        .then(() => this.readTokens())
        .catch(() => undefined);
    this.saw(n.context.slot);
  }

  /** Takes one program account into the mirror (unless what is held is newer); returns its kind. */
  private apply(address: string, slot: number, account: RawAccount): 'config' | 'bet' | 'bettor' | null {
    const data = bytesOf(account);
    const kind = account.owner === this.programName && account.lamports > 0 ? accountKind(data) : null;
    try {
      if (kind === 'config') {
        if (!this.cfg || this.cfg.slot <= slot) this.cfg = { slot, value: decodeConfig(data) };
        this.noteSlot(address, slot);
      } else if (kind === 'bet') {
        const held = this.bets.get(address);
        if (!held || held.slot <= slot) {
          const bet = decodeBet(data);
          if (!held) betAddress.prime({ bettor: bet.bettor, seq: bet.seq }, new PublicKey(address)); // the program creates bets at their PDA only
          this.bets.set(address, { slot, value: bet });
        }
      } else if (kind === 'bettor') {
        const state = decodeBettorState(data);
        if (!this.bettors.has(state.bettor)) bettorAddress.prime(new PublicKey(state.bettor), new PublicKey(address));
        const held = this.bettors.get(state.bettor);
        if (!held || held.slot <= slot) {
          this.bettors.set(state.bettor, { slot, value: state });
          if (held?.value) this.forgetReclaimed(held.value.reclaimed, state);
        }
        this.noteSlot(address, slot);
      }
    } catch (err) {
      this.o.log.error({ address, err: (err as Error).message }, 'program account that does not decode; left out of the mirror');
      return null;
    }
    if (kind !== null) this.wake(address);
    return kind;
  }

  private setToken(address: string, slot: number, amount: bigint): void {
    const held = this.tokens.get(address);
    if (!held || held.slot <= slot) this.tokens.set(address, { slot, value: amount });
    this.wake(address);
  }

  /**
   * A closed account sends no notification (programSubscribe follows accounts the program owns),
   * so a reclaim is seen in the bettor state instead: reclaims go in seq order
   * (docs/architecture.md#reclaiming-settled-bets), so `reclaimed` = r means the bettor's settled
   * bets below seq r are gone, whichever node reclaimed them.
   */
  private forgetReclaimed(before: bigint, state: BettorState): void {
    for (let seq = before; seq < state.reclaimed; seq++) {
      const address = nameOf(betAddress({ bettor: state.bettor, seq }));
      if (this.bets.get(address)?.value.status !== 0) this.bets.delete(address);
    }
  }

  private noteSlot(address: string, slot: number): void {
    if ((this.programSlots.get(address) ?? -1) < slot) this.programSlots.set(address, slot);
  }

  /** The slot the account at `address` is known at (-1 when not held). */
  private heldSlot(address: string): number {
    return this.bets.get(address)?.slot ?? this.tokens.get(address)?.slot ?? this.programSlots.get(address) ?? -1;
  }

  private wake(address: string): void {
    const waiting = this.writeWaiters.get(address);
    if (!waiting) return;
    const held = this.heldSlot(address);
    const ready = waiting.filter((w) => w.slot <= held);
    if (ready.length === 0) return;
    const left = waiting.filter((w) => w.slot > held);
    if (left.length === 0) this.writeWaiters.delete(address);
    else this.writeWaiters.set(address, left);
    for (const w of ready) w.resolve();
  }

  /** Resolves once the mirror holds the account at `address` as of `slot` or later, or after `timeoutMs` (false then). */
  private heldAt(address: string, slot: number, timeoutMs: number): Promise<boolean> {
    if (this.heldSlot(address) >= slot) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = { slot, resolve: () => resolve(true) };
      const list = this.writeWaiters.get(address) ?? [];
      list.push(waiter);
      this.writeWaiters.set(address, list);
      setTimeout(() => {
        const now = this.writeWaiters.get(address)?.filter((w) => w !== waiter) ?? [];
        if (now.length === 0) this.writeWaiters.delete(address);
        else this.writeWaiters.set(address, now);
        resolve(this.heldSlot(address) >= slot);
      }, timeoutMs).unref();
    });
  }

  /**
   * Resolves once the mirror holds each of these accounts as a transaction of `slot` left them:
   * from their own notifications (never another account's notification of the same slot), or,
   * when those are late, from a read of the chain at that slot or later.
   */
  async written(addresses: PublicKey[], slot: number, timeoutMs: number): Promise<void> {
    const names = addresses.map((a) => nameOf(a));
    const seen = await Promise.all(names.map((name) => this.heldAt(name, slot, timeoutMs)));
    const late = addresses.filter((_, i) => !seen[i]);
    if (late.length > 0) await this.refresh(late, slot);
  }

  private saw(slot: number): void {
    if (slot > this.slotSeen) this.slotSeen = slot;
  }

  /** Throws ChainUnavailable when the subscriptions have been down longer than the grace. */
  private fresh(): void {
    if (this.o.pubsub.status() === 'open') return;
    if (Date.now() - this.o.pubsub.statusSince() > (this.o.staleGraceMs ?? 1_000))
      throw new ChainUnavailable('the chain is unreachable (its subscriptions are down); values held may be stale');
  }

  private async ready(): Promise<void> {
    await this.start();
    this.fresh();
  }

  async config(): Promise<ContractConfig | null> {
    await this.ready();
    return this.cfg?.value ?? null;
  }

  async bet(ref: BetRef): Promise<BetAccount | null> {
    await this.ready();
    return this.bets.get(nameOf(betAddress(ref)))?.value ?? null;
  }

  /** The bet held for `ref` without waiting or checking freshness (null when none). */
  peekBet(ref: BetRef): BetAccount | null {
    return this.bets.get(nameOf(betAddress(ref)))?.value ?? null;
  }

  /** The bettor state held for `bettor` without waiting or checking freshness (null when none). */
  peekBettor(bettor: PublicKey): BettorState | null {
    return this.bettors.get(nameOf(bettor))?.value ?? null;
  }

  async bettor(bettor: PublicKey): Promise<BettorState | null> {
    await this.ready();
    return this.bettors.get(nameOf(bettor))?.value ?? null;
  }

  async openBets(): Promise<BetAccount[]> {
    await this.ready();
    return [...this.bets.values()].map((b) => b.value).filter((b) => b.status === 0);
  }

  async betsOf(bettor: PublicKey): Promise<BetAccount[]> {
    await this.ready();
    const key = bettor.toBase58();
    return [...this.bets.values()]
      .map((b) => b.value)
      .filter((b) => b.bettor === key)
      .sort((a, b) => (a.seq < b.seq ? -1 : 1));
  }

  /** Token units held by the token account at `address` (0 when it does not exist). */
  async tokenAmount(address: PublicKey): Promise<bigint> {
    await this.ready();
    return this.tokens.get(nameOf(address))?.value ?? 0n;
  }

  /** Token units `owner` holds in its associated token account of the mint. */
  async tokenUnitsOf(owner: PublicKey): Promise<bigint> {
    await this.ready();
    return this.mint ? (this.tokens.get(nameOf(tokenAccountOf(this.mint, owner)))?.value ?? 0n) : 0n;
  }

  /** SOL of a wallet: from memory once watched; the first ask reads it (shared by concurrent askers) and starts watching it. */
  async lamports(wallet: PublicKey): Promise<bigint> {
    await this.ready();
    const key = nameOf(wallet);
    let entry = this.wallets.get(key);
    if (entry) {
      // least recently asked first out: re-insert at the end
      this.wallets.delete(key);
      this.wallets.set(key, entry);
    } else {
      entry = { known: null, sub: null, loading: null };
      this.wallets.set(key, entry);
      this.evictWallets();
      const e = entry;
      void this.o.pubsub
        .subscribe('accountSubscribe', [key, { encoding: 'base64', commitment: 'confirmed' }], (r) => {
          const n = v.parse(AccountNotification, r);
          if (!e.known || e.known.slot <= n.context.slot) e.known = { slot: n.context.slot, value: BigInt(n.value.lamports) };
          this.saw(n.context.slot);
        })
        .then((sub) => {
          if (this.wallets.get(key) === e) e.sub = sub;
          else sub.unsubscribe();
        })
        .catch((err: unknown) => this.o.log.warn({ wallet: key, err: (err as Error).message }, 'could not watch a wallet'));
    }
    if (!entry.known) {
      entry.loading ??= this.readWallets([key]).finally(() => {
        if (entry) entry.loading = null;
      });
      await entry.loading;
    }
    return entry.known?.value ?? 0n;
  }

  private evictWallets(): void {
    while (this.wallets.size > this.maxWallets) {
      const [oldest, entry] = this.wallets.entries().next().value as [string, { sub: Subscription | null }];
      this.wallets.delete(oldest);
      entry.sub?.unsubscribe();
    }
  }

  private async readWallets(keys: string[]): Promise<void> {
    const res = await this.o.rpc.call('getMultipleAccounts', [keys, { encoding: 'base64', commitment: 'confirmed' }], Multiple);
    keys.forEach((key, i) => {
      const entry = this.wallets.get(key);
      if (!entry) return;
      const acc = res.value[i];
      if (!entry.known || entry.known.slot <= res.context.slot) entry.known = { slot: res.context.slot, value: BigInt(acc?.lamports ?? 0) };
    });
  }

  /** Forgets a bet whose account this process closed (reclaim_bet): the chain does not announce a closed account. */
  forgetBet(ref: BetRef): void {
    this.bets.delete(nameOf(betAddress(ref)));
  }

  /**
   * Reads these accounts now (program accounts and token accounts of the mint), after a write
   * whose notification did not come in time; with `minSlot`, as of that slot or later (a node
   * still behind it is asked again for a few seconds).
   */
  async refresh(addresses: PublicKey[], minSlot?: number): Promise<void> {
    const config = { encoding: 'base64', commitment: 'confirmed', ...(minSlot === undefined ? {} : { minContextSlot: minSlot }) };
    let res: v.InferOutput<typeof Multiple> | null = null;
    for (const deadline = Date.now() + REFRESH_BEHIND_MS; res === null;) {
      try {
        res = await this.o.rpc.call('getMultipleAccounts', [addresses.map((a) => a.toBase58()), config], Multiple);
      } catch (err) {
        if (!(err instanceof RpcError) || err.code !== MIN_CONTEXT_SLOT_NOT_REACHED || Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const read = res;
    addresses.forEach((a, i) => {
      const key = a.toBase58();
      const acc = read.value[i];
      if (acc && acc.owner === TOKEN_PROGRAM_ID.toBase58()) this.setToken(key, read.context.slot, tokenAmountOf(bytesOf(acc)));
      else if (acc) this.apply(key, read.context.slot, acc);
      else if ((this.bets.get(key)?.slot ?? Infinity) <= read.context.slot) this.bets.delete(key);
    });
  }

  /** How much the mirror holds (operators, metrics). */
  stats(): { bets: number; openBets: number; bettors: number; tokenAccounts: number; wallets: number; slot: number; subscriptions: string } {
    let open = 0;
    for (const b of this.bets.values()) if (b.value.status === 0) open++;
    return {
      bets: this.bets.size,
      openBets: open,
      bettors: this.bettors.size,
      tokenAccounts: this.tokens.size,
      wallets: this.wallets.size,
      slot: this.slotSeen,
      subscriptions: this.o.pubsub.status(),
    };
  }

  close(): void {
    for (const entry of this.wallets.values()) entry.sub?.unsubscribe();
    this.o.pubsub.close();
  }
}
