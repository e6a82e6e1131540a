/**
 * The resting orders of one process, per symbol and side, in price-time priority
 * (docs/orders.md#resting-fills): a B+ tree (`sorted-btree`) keyed by (price, arrival), so the
 * matcher walks from the best price and stops at the first order the book does not reach. Work per
 * book update is then proportional to the orders that cross, not to the orders resting.
 *
 * @example
 *   const resting = new RestingOrders();
 *   resting.add(entry);
 *   for (const e of resting.best('SOLUSDT', 'BUY')) if (!crosses(e)) break;
 */
import sortedBtree from 'sorted-btree';

import type { Decimal } from '../../../machines/exchange/money.ts';
import type { EngineOrderSnapshot } from '../../../machines/engine-order.ts';
import type { BookSymbol } from '../../../kernel/domain.ts';

/** A resting order as the matcher holds it. */
export interface RestingEntry {
  orderId: string;
  accountId: string;
  clientOrderId: string;
  symbol: BookSymbol;
  side: 'BUY' | 'SELL';
  price: Decimal;
  /** arrival order within the process: earlier first at one price */
  seq: number;
  /** quantity not yet matched (fills being committed already count as matched) */
  unmatched: Decimal;
  /** the order as its latest commit saved it */
  snapshot: EngineOrderSnapshot;
}

type BTreeClass = typeof sortedBtree.default;
const loaded = sortedBtree as unknown as BTreeClass | { default: BTreeClass };
// a CommonJS package: Node hands a default import its exports object, the test runner the class itself
const BTree: BTreeClass = typeof loaded === 'function' ? loaded : loaded.default;
type BTree<K, V> = InstanceType<typeof sortedBtree.default<K, V>>;

type Key = { price: Decimal; seq: number };
// bids: highest price first; asks: lowest first; one price: earliest first
const bidOrder = (a: Key, b: Key): number => b.price.comparedTo(a.price) || a.seq - b.seq;
const askOrder = (a: Key, b: Key): number => a.price.comparedTo(b.price) || a.seq - b.seq;

/** Resting orders by symbol and side, with lookups by order id and client order id. */
export class RestingOrders {
  private readonly trees = new Map<string, BTree<Key, RestingEntry>>();
  private readonly byId = new Map<string, RestingEntry>();
  private readonly byClientId = new Map<string, RestingEntry>();
  private nextSeq = 0;

  private tree(symbol: BookSymbol, side: 'BUY' | 'SELL'): BTree<Key, RestingEntry> {
    const name = `${symbol}:${side}`;
    let t = this.trees.get(name);
    if (!t) this.trees.set(name, (t = new BTree<Key, RestingEntry>(undefined, side === 'BUY' ? bidOrder : askOrder)));
    return t;
  }

  /** Adds an order (its `seq` is given here). */
  add(entry: Omit<RestingEntry, 'seq'>): RestingEntry {
    const e: RestingEntry = { ...entry, seq: this.nextSeq++ };
    this.tree(e.symbol, e.side).set({ price: e.price, seq: e.seq }, e);
    this.byId.set(e.orderId, e);
    this.byClientId.set(`${e.accountId} ${e.clientOrderId}`, e);
    return e;
  }

  /** Takes the order out of matching (it stays findable until `forget`). */
  unlist(e: RestingEntry): void {
    this.tree(e.symbol, e.side).delete({ price: e.price, seq: e.seq });
  }

  /** Puts an unlisted order back, at its old place in time. */
  relist(e: RestingEntry): void {
    this.tree(e.symbol, e.side).set({ price: e.price, seq: e.seq }, e);
  }

  /** Forgets the order altogether (it is final). */
  forget(e: RestingEntry): void {
    this.unlist(e);
    if (this.byId.get(e.orderId) === e) this.byId.delete(e.orderId);
    const cid = `${e.accountId} ${e.clientOrderId}`;
    if (this.byClientId.get(cid) === e) this.byClientId.delete(cid);
  }

  /** The order with this id or client id, while this process holds it. */
  find(accountId: string, ref: { orderId: string } | { clientOrderId: string }): RestingEntry | undefined {
    const e = 'orderId' in ref ? this.byId.get(ref.orderId) : this.byClientId.get(`${accountId} ${ref.clientOrderId}`);
    return e && e.accountId === accountId ? e : undefined;
  }

  /** The listed orders of a symbol's side, best first (stop iterating as soon as one does not cross). */
  *best(symbol: BookSymbol, side: 'BUY' | 'SELL'): IterableIterator<RestingEntry> {
    for (const [, e] of this.tree(symbol, side).entries()) yield e;
  }

  /** How many orders are listed. */
  get size(): number {
    let n = 0;
    for (const t of this.trees.values()) n += t.size;
    return n;
  }
}
