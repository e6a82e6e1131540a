/**
 * Accounts as this process last read or committed them, so an order without an
 * Idempotency-Key reaches the store once (its commit) instead of twice (load, commit).
 * A cached account is only a guess: the commit's version check refuses it when another
 * writer (another process, a deposit) moved the account on, and the order then reloads;
 * a refusal decided on a cached account is decided again on a fresh load before it is
 * answered. Reads that answer clients never use it.
 */
import { LRUCache } from 'lru-cache';
import type { AccountBundle } from '../../adapters/store/exchange/port.ts';

/** The most recently used accounts (read or kept), at most `max`. */
export class AccountCache {
  private readonly held: LRUCache<string, AccountBundle>;

  constructor(max = 10_000) {
    this.held = new LRUCache({ max });
  }

  get(id: string): AccountBundle | undefined {
    return this.held.get(id);
  }

  /** Keeps `bundle` as the latest known state of its account. */
  set(id: string, bundle: AccountBundle): void {
    this.held.set(id, bundle);
  }

  drop(id: string): void {
    this.held.delete(id);
  }

  get size(): number {
    return this.held.size;
  }
}

const caches = new WeakMap<object, AccountCache>();

/** The cache of accounts kept in `store` (one per store, so tests with separate stores never share one). */
export function accountCacheOf(store: object): AccountCache {
  let cache = caches.get(store);
  if (!cache) caches.set(store, (cache = new AccountCache()));
  return cache;
}
