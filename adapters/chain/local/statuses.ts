/**
 * The local chain's signature statuses (getSignatureStatuses, signatureSubscribe, AlreadyProcessed):
 * a transaction is pending from its execution until its journal record is on disk, and only then
 * published — to readers and to whoever waits for it. The newest `MAX_STATUSES` are kept.
 *
 * @example
 *   statuses.pend(sig, entry);      // executed and journaled, not yet durable: a resend is refused
 *   statuses.publish(sig, entry);   // durable: visible, watchers called
 */
import type { StatusEntry } from './journal.ts';

const MAX_STATUSES = 50_000;

/** Statuses by signature, pending and published. */
export class SignatureStatuses {
  private readonly published = new Map<string, StatusEntry>();
  /** executed, journaled, waiting for the next fsync before anyone hears of them */
  private readonly pending = new Map<string, StatusEntry>();
  private readonly watchers = new Map<string, Set<(status: StatusEntry) => void>>();

  /** The published status of `signature`, or null. */
  get(signature: string): StatusEntry | null {
    return this.published.get(signature) ?? null;
  }

  /** Whether `signature` was executed already (published or pending): a resend is AlreadyProcessed. */
  known(signature: string): boolean {
    return this.published.has(signature) || this.pending.has(signature);
  }

  /** Every status, published then pending (what a snapshot keeps: pending ones are in the journal already). */
  entries(): [string, StatusEntry][] {
    return [...this.published, ...this.pending];
  }

  /** Sets a status as restored from disk (snapshot or journal replay). */
  restore(signature: string, status: StatusEntry): void {
    this.published.set(signature, status);
    this.trim();
  }

  /** Marks a transaction executed and journaled, not yet durable. */
  pend(signature: string, status: StatusEntry): void {
    this.pending.set(signature, status);
  }

  /** Publishes a durable transaction's status and calls its watchers. */
  publish(signature: string, status: StatusEntry): void {
    this.pending.delete(signature);
    this.published.set(signature, status);
    const waiting = this.watchers.get(signature);
    this.watchers.delete(signature);
    for (const cb of waiting ?? []) cb(status);
    this.trim();
  }

  /** Calls `cb` once the signature has a published status — at once when it already has one. Returns an unsubscribe. */
  watch(signature: string, cb: (status: StatusEntry) => void): () => void {
    const known = this.published.get(signature);
    if (known) {
      queueMicrotask(() => cb(known));
      return () => undefined;
    }
    const set = this.watchers.get(signature) ?? new Set();
    set.add(cb);
    this.watchers.set(signature, set);
    return () => {
      set.delete(cb);
      if (set.size === 0) this.watchers.delete(signature);
    };
  }

  private trim(): void {
    for (const oldest of this.published.keys()) {
      if (this.published.size <= MAX_STATUSES) return;
      this.published.delete(oldest);
    }
  }
}
