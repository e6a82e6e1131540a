/**
 * The compute-unit prices recent slots paid (getRecentPrioritizationFees, in the validator's shape
 * `[{slot, prioritizationFee}]`; docs/architecture.md#the-local-chain): per slot, the highest
 * price (micro-lamports) of a transaction that landed in it, overall and per account it wrote.
 * Kept in memory for the last 150 slots this process saw, as a validator's cache holds 150 blocks.
 *
 * @example
 *   fees.enter(slot);                                 // every slot
 *   fees.record(slot, 5_000n, ['Payer…', 'Bet…']);    // a landed transaction's price and writable accounts
 *   fees.recent(slot, ['Bet…']);                      // [{ slot, prioritizationFee }], oldest first
 */

/** slots answered, like a validator's prioritization fee cache */
export const RECENT_FEE_SLOTS = 150;

interface SlotFees {
  /** the highest price paid in the slot */
  top: number;
  byAccount: Map<string, number>;
}

/** The recent slots' prioritization fees. */
export class PrioritizationFees {
  private readonly slots = new Map<number, SlotFees>();
  /** the first slot this process saw: no slot before it is answered */
  private first: number | null = null;

  /** A new slot began; slots that fell out of the window are forgotten. */
  enter(slot: number): void {
    this.first ??= slot;
    for (const old of this.slots.keys()) {
      if (old > slot - RECENT_FEE_SLOTS) break;
      this.slots.delete(old);
    }
  }

  /** A transaction that offered `price` per compute unit landed in `slot`, writing `accounts`. */
  record(slot: number, price: bigint, accounts: readonly string[]): void {
    if (price === 0n) return; // the answer for a slot nobody paid in is 0 anyway
    const fee = Number(price);
    let entry = this.slots.get(slot);
    if (!entry) {
      entry = { top: 0, byAccount: new Map() };
      this.slots.set(slot, entry);
    }
    entry.top = Math.max(entry.top, fee);
    for (const a of accounts) entry.byAccount.set(a, Math.max(entry.byAccount.get(a) ?? 0, fee));
  }

  /**
   * One entry per recent slot up to `now`, oldest first: the highest price paid by a transaction
   * that wrote any of `accounts` (any transaction when none are given), 0 when there was none.
   */
  recent(now: number, accounts: readonly string[] = []): Array<{ slot: number; prioritizationFee: number }> {
    const out: Array<{ slot: number; prioritizationFee: number }> = [];
    for (let slot = Math.max(this.first ?? now, now - RECENT_FEE_SLOTS + 1); slot <= now; slot++) {
      const entry = this.slots.get(slot);
      let fee = 0;
      if (entry && accounts.length === 0) fee = entry.top;
      else if (entry) for (const a of accounts) fee = Math.max(fee, entry.byAccount.get(a) ?? 0);
      out.push({ slot, prioritizationFee: fee });
    }
    return out;
  }
}
