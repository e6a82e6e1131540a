/**
 * The SOL balances the chain mirror watches (docs/architecture.md#the-chain-mirror): a wallet never
 * seen is read once (concurrent askers share the read) and then followed by `accountSubscribe`;
 * the least recently asked wallets are dropped past a limit.
 */
import * as v from 'valibot';
import type { Logger } from '../../../kernel/log.ts';
import type { PubSub, Subscription } from '../pubsub.ts';
import type { RpcClient } from '../rpc-client.ts';
import type { MirrorHoldings } from './holdings.ts';
import { AccountNotification, Multiple, type Known } from './wire.ts';

interface Watched {
  /** when it was last (re)inserted, counted in insertions */
  stamp: number;
  known: Known<bigint> | null;
  sub: Subscription | null;
  loading: Promise<void> | null;
}

/** The watched wallets, least recently asked first. */
export class WalletWatch {
  private readonly wallets = new Map<string, Watched>();
  /** insertions so far: the map's order is the order of the stamps */
  private inserted = 0;

  constructor(
    private readonly rpc: RpcClient,
    private readonly pubsub: PubSub,
    private readonly log: Logger,
    private readonly holdings: MirrorHoldings,
    private readonly maxWallets: number,
  ) {}

  get size(): number {
    return this.wallets.size;
  }

  /** The wallets watched, by name. */
  keys(): string[] {
    return [...this.wallets.keys()];
  }

  /** SOL of the wallet named `key` when it is watched and known (it becomes the most recently asked), else undefined; never waits. */
  peek(key: string): bigint | undefined {
    const entry = this.wallets.get(key);
    if (!entry?.known) return undefined;
    this.touch(key, entry);
    return entry.known.value;
  }

  /** SOL of the wallet named `key`: from memory once watched; the first ask reads it (shared by concurrent askers) and starts watching it. */
  async lamports(key: string): Promise<bigint> {
    let entry = this.wallets.get(key);
    if (entry) this.touch(key, entry);
    else {
      entry = { stamp: ++this.inserted, known: null, sub: null, loading: null };
      this.wallets.set(key, entry);
      this.evict();
      const e = entry;
      void this.pubsub
        .subscribe('accountSubscribe', [key, { encoding: 'base64', commitment: 'confirmed' }], (r) => {
          const n = v.parse(AccountNotification, r);
          if (!e.known || e.known.slot <= n.context.slot) {
            e.known = { slot: n.context.slot, value: BigInt(n.value.lamports) };
            this.holdings.changes++;
          }
          this.holdings.saw(n.context.slot);
        })
        .then((sub) => {
          if (this.wallets.get(key) === e) e.sub = sub;
          else sub.unsubscribe();
        })
        .catch((err: unknown) => this.log.warn({ wallet: key, err: (err as Error).message }, 'could not watch a wallet'));
    }
    if (!entry.known) {
      entry.loading ??= this.read([key]).finally(() => {
        if (entry) entry.loading = null;
      });
      await entry.loading;
    }
    return entry.known?.value ?? 0n;
  }

  /**
   * Least recently asked first out: an asked wallet moves to the end of the order. Only one in the
   * older half moves: a wallet in the newer half is not near eviction, and moving costs more than
   * the read (the read routes ask on every request).
   */
  private touch(key: string, entry: Watched): void {
    if (entry.stamp > this.inserted - this.maxWallets / 2) return;
    this.wallets.delete(key);
    entry.stamp = ++this.inserted;
    this.wallets.set(key, entry);
  }

  private evict(): void {
    while (this.wallets.size > this.maxWallets) {
      const [oldest, entry] = this.wallets.entries().next().value as [string, { sub: Subscription | null }];
      this.wallets.delete(oldest);
      entry.sub?.unsubscribe();
      this.holdings.changes++; // no longer followed: a body made from it may go stale
    }
  }

  /** Reads the balances of these watched wallets. */
  async read(keys: string[]): Promise<void> {
    const res = await this.rpc.call('getMultipleAccounts', [keys, { encoding: 'base64', commitment: 'confirmed' }], Multiple);
    keys.forEach((key, i) => {
      const entry = this.wallets.get(key);
      if (!entry) return;
      const acc = res.value[i];
      if (!entry.known || entry.known.slot <= res.context.slot) {
        entry.known = { slot: res.context.slot, value: BigInt(acc?.lamports ?? 0) };
        this.holdings.changes++;
      }
    });
  }

  /** Stops watching every wallet. */
  close(): void {
    for (const entry of this.wallets.values()) entry.sub?.unsubscribe();
  }
}
