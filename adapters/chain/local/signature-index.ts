/**
 * Which committed transactions wrote an address, for `getSignaturesForAddress`
 * (docs/architecture.md#the-local-chain; the gateway finds the transaction that closed a bet account this way, also after
 * the account is gone). Every account a transaction wrote is indexed, deleted ones included.
 * Memory is bounded: the newest `perAddress` signatures of an address, and at most `addresses`
 * addresses and `signatures` entries in all — an address not written for longest goes first
 * (second chance: an address written since it was queued goes to the back instead, so a write
 * costs no reordering).
 *
 * @example
 *   index.add(['bet1', 'relayer'], { signature, slot, err: null, blockTime });
 *   index.query('bet1', { limit: 10 }, (sig) => node.status(sig)); // newest first
 */
import type { TxErrorJson } from './tx-errors.ts';

/** One committed transaction as getSignaturesForAddress lists it. */
export interface SignatureEntry {
  signature: string;
  slot: number;
  err: TxErrorJson | null;
  /** unix seconds; null when not known (records written before block times were kept) */
  blockTime: number | null;
}

/** A page request, as getSignaturesForAddress takes it. */
export interface SignatureQuery {
  /** 1..perAddress */
  limit: number;
  /** only transactions older than this one */
  before?: string;
  /** only transactions newer than this one */
  until?: string;
}

/** Bounds of the index. */
export interface SignatureIndexLimits {
  perAddress: number;
  addresses: number;
  signatures: number;
}

/** A validator's cap on one getSignaturesForAddress page, and what the index keeps per address. */
export const MAX_SIGNATURES_PER_ADDRESS = 1_000;

const DEFAULT_LIMITS: SignatureIndexLimits = { perAddress: MAX_SIGNATURES_PER_ADDRESS, addresses: 250_000, signatures: 1_000_000 };

/** The slot of a signature the index may not hold for this address (the node's statuses). */
export type LocateSignature = (signature: string) => { slot: number } | null;

/** One address's entries (oldest first), and when it was last written and last queued (write counts). */
interface Indexed {
  entries: SignatureEntry[];
  written: number;
  queued: number;
}

/** Signatures by the addresses their transactions wrote. */
export class SignatureIndex {
  /** in queue order: the front is the next to evict unless written since it was queued */
  private readonly byAddress = new Map<string, Indexed>();
  private writes = 0;
  private total = 0;
  private readonly limits: SignatureIndexLimits;
  /** addresses restored from a snapshot that no replayed transaction has added to yet */
  private readonly unsettled = new Set<string>();
  /** their snapshot signatures, gathered when a replayed transaction first asks */
  private readonly restoredSignatures = new Map<string, Set<string>>();

  constructor(limits: Partial<SignatureIndexLimits> = {}) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
  }

  /** Addresses indexed. */
  get size(): number {
    return this.byAddress.size;
  }

  /** Entries indexed, over every address. */
  get entries(): number {
    return this.total;
  }

  /**
   * Records that `entry`'s transaction wrote `addresses`. A journal replayed over a snapshot may
   * bring transactions the snapshot's lists already hold (it was taken while they landed): until
   * `settle()`, an address restored from a snapshot skips a signature its list has.
   */
  add(addresses: Iterable<string>, entry: SignatureEntry): void {
    for (const address of addresses) {
      const held = this.byAddress.get(address);
      this.writes++;
      if (!held) {
        this.byAddress.set(address, { entries: [entry], written: this.writes, queued: this.writes });
        this.total++;
        continue;
      }
      if (this.unsettled.has(address)) {
        let restored = this.restoredSignatures.get(address);
        if (!restored) {
          restored = new Set(held.entries.map((e) => e.signature));
          this.restoredSignatures.set(address, restored);
        }
        if (restored.has(entry.signature)) continue;
        // commits come in order: once one is new to this list, every later one is too
        this.unsettled.delete(address);
        this.restoredSignatures.delete(address);
      }
      held.written = this.writes;
      held.entries.push(entry);
      this.total++;
      if (held.entries.length > this.limits.perAddress) {
        held.entries.shift();
        this.total--;
      }
    }
    this.evict();
  }

  /** Sets an address's list as a snapshot holds it (oldest first), at the back of the queue. */
  restore(address: string, entries: SignatureEntry[]): void {
    const old = this.byAddress.get(address);
    if (old) this.total -= old.entries.length;
    this.byAddress.delete(address);
    const kept = entries.slice(-this.limits.perAddress);
    this.writes++;
    this.byAddress.set(address, { entries: kept, written: this.writes, queued: this.writes });
    this.total += kept.length;
    this.unsettled.add(address);
    this.evict();
  }

  /** Ends the replay after a restore: from now on every added transaction is new. */
  settle(): void {
    this.unsettled.clear();
    this.restoredSignatures.clear();
  }

  /** Indexed addresses in eviction order (the order a snapshot keeps). */
  addresses(): string[] {
    return [...this.byAddress.keys()];
  }

  /** An address's entries, oldest first (empty when none). */
  of(address: string): readonly SignatureEntry[] {
    return this.byAddress.get(address)?.entries ?? [];
  }

  /**
   * One page of an address's signatures, newest first, with a validator's semantics: `before`
   * and `until` are exclusive; an unknown `before` gives nothing, an unknown `until` no bound.
   * A signature this address's list does not hold is placed by its slot (`locate`); at equal slots
   * its order against the address's transactions is unknown, so that slot is left out.
   */
  query(address: string, q: SignatureQuery, locate: LocateSignature): SignatureEntry[] {
    const list = this.byAddress.get(address)?.entries ?? [];
    let end = list.length;
    if (q.before !== undefined) {
      const at = lastIndexOf(list, q.before);
      if (at >= 0) end = at;
      else {
        const found = locate(q.before);
        if (!found) return [];
        end = firstIndex(list, (e) => e.slot >= found.slot);
      }
    }
    let start = 0;
    if (q.until !== undefined) {
      const at = lastIndexOf(list, q.until);
      if (at >= 0) start = at + 1;
      else {
        const found = locate(q.until);
        if (found) start = firstIndex(list, (e) => e.slot > found.slot);
      }
    }
    return list.slice(Math.max(start, end - q.limit), Math.max(start, end)).reverse();
  }

  private evict(): void {
    while (this.byAddress.size > this.limits.addresses || this.total > this.limits.signatures) {
      const front = this.byAddress.entries().next();
      if (front.done) return;
      const [address, held] = front.value;
      this.byAddress.delete(address);
      if (held.written > held.queued) {
        held.queued = this.writes; // written since it was queued: a second chance, at the back
        this.byAddress.set(address, held);
        continue;
      }
      this.total -= held.entries.length;
      this.unsettled.delete(address);
      this.restoredSignatures.delete(address);
    }
  }
}

function lastIndexOf(list: readonly SignatureEntry[], signature: string): number {
  for (let i = list.length - 1; i >= 0; i--) if ((list[i] as SignatureEntry).signature === signature) return i;
  return -1;
}

/** The first index whose entry satisfies `pred` (entries are in slot order), or the length. */
function firstIndex(list: readonly SignatureEntry[], pred: (e: SignatureEntry) => boolean): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (pred(list[mid] as SignatureEntry)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
