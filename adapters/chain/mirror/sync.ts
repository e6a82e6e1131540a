/**
 * How the chain mirror is fed (docs/architecture.md#the-chain-mirror): `programSubscribe` on the
 * program and, once the mint is known, on the token program filtered by mint; a full read at start
 * and after every dropped connection (re-sync); and reads of chosen accounts when a write's
 * notification is late.
 */
import * as v from 'valibot';
import { PublicKey } from '@solana/web3.js';
import { TOKEN_PROGRAM_ID } from '@solana/spl-token';
import type { Logger } from '../../../kernel/log.ts';
import { ChainUnavailable, type ContractConfig } from '../port.ts';
import type { PubSub, Subscription } from '../pubsub.ts';
import { RpcError, type RpcClient } from '../rpc-client.ts';
import type { MirrorHoldings } from './holdings.ts';
import type { WalletWatch } from './wallets.ts';
import { bytesOf, Multiple, ProgramAccounts, ProgramNotification, TOKEN_ACCOUNT_SIZE, tokenAmountOf, type Known } from './wire.ts';
import { setTimeout as sleep } from 'node:timers/promises';

/** JSON-RPC: the node has not reached the `minContextSlot` asked for yet. */
const MIN_CONTEXT_SLOT_NOT_REACHED = -32016;
/** How long a read at a slot waits for a node behind it. */
const REFRESH_BEHIND_MS = 3_000;

/** What the feed reads from and writes into. */
export interface SyncOptions {
  rpc: RpcClient;
  pubsub: PubSub;
  programId: PublicKey;
  log: Logger;
  holdings: MirrorHoldings;
  wallets: WalletWatch;
  /** how long the first subscription may take to be acknowledged before reads fail [10000 ms] */
  startTimeoutMs?: number;
}

/** The subscriptions and reads that keep the holdings current. */
export class MirrorSync {
  /** the contract's mint, once the config is known */
  mint: PublicKey | null = null;
  /** the first start (subscribed, everything read once) has finished */
  started = false;
  private tokenSub: Promise<void> | null = null;
  private starting: Promise<void> | null = null;
  private programSub: Promise<Subscription> | null = null;
  private syncing: Promise<void> | null = null;
  private readonly held: MirrorHoldings;

  constructor(private readonly o: SyncOptions) {
    this.held = o.holdings;
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
      this.started = true;
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
      const kind = this.held.apply(pubkey, programs.context.slot, account);
      if (kind === 'config' && this.held.cfg) config = this.held.cfg;
    }
    if (config.value === null && (!this.held.cfg || this.held.cfg.slot <= programs.context.slot)) this.held.cfg = config;
    // accounts gone since (reclaimed bets, closed bettor states)
    for (const [address, bet] of this.held.bets) if (!seen.has(address) && bet.slot <= programs.context.slot) this.held.bets.delete(address);
    await this.watchMint();
    await this.readTokens();
    const watched = this.o.wallets.keys();
    for (let i = 0; i < watched.length; i += 100) await this.o.wallets.read(watched.slice(i, i + 100));
  }

  /** Reads every token account of the mint (once the mint is known). */
  private async readTokens(): Promise<void> {
    if (!this.mint) return;
    const tokens = await this.o.rpc.call(
      'getProgramAccounts',
      [TOKEN_PROGRAM_ID.toBase58(), { encoding: 'base64', commitment: 'confirmed', withContext: true, filters: this.mintFilters(this.mint) }],
      ProgramAccounts,
    );
    for (const { pubkey, account } of tokens.value) this.held.setToken(pubkey, tokens.context.slot, tokenAmountOf(bytesOf(account)));
  }

  private mintFilters(mint: PublicKey) {
    return [{ dataSize: TOKEN_ACCOUNT_SIZE }, { memcmp: { offset: 0, bytes: mint.toBase58() } }];
  }

  /** Once the mint is known (the config exists), watches every token account of it. */
  private watchMint(): Promise<void> {
    const config = this.held.cfg?.value;
    if (!config || this.tokenSub) return this.tokenSub ?? Promise.resolve();
    this.mint = new PublicKey(config.mint);
    this.tokenSub = this.o.pubsub
      .subscribe(
        'programSubscribe',
        [TOKEN_PROGRAM_ID.toBase58(), { encoding: 'base64', commitment: 'confirmed', filters: this.mintFilters(this.mint) }],
        (r) => {
          const n = v.parse(ProgramNotification, r);
          this.held.setToken(n.value.pubkey, n.context.slot, tokenAmountOf(bytesOf(n.value.account)));
          this.held.saw(n.context.slot);
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
    const kind = this.held.apply(n.value.pubkey, n.context.slot, n.value.account);
    // the contract was initialised after the mirror started: start following its mint's token accounts
    if (kind === 'config' && !this.tokenSub)
      void this.watchMint()
        .then(() => this.readTokens())
        .catch(() => undefined);
    this.held.saw(n.context.slot);
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
        await sleep(100);
      }
    }
    const read = res;
    addresses.forEach((a, i) => {
      const key = a.toBase58();
      const acc = read.value[i];
      if (acc && acc.owner === TOKEN_PROGRAM_ID.toBase58()) this.held.setToken(key, read.context.slot, tokenAmountOf(bytesOf(acc)));
      else if (acc) this.held.apply(key, read.context.slot, acc);
      else if ((this.held.bets.get(key)?.slot ?? Infinity) <= read.context.slot) this.held.bets.delete(key);
    });
  }
}
