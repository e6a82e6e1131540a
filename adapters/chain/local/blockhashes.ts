/**
 * Recent blockhashes of the local chain: one per slot, derived from the genesis hash and the
 * slot (so they differ between data dirs), valid for 150 slots as on a cluster: the blockhash of
 * slot `s` is accepted up to and including block height `s + 150`, the `lastValidBlockHeight`
 * `getLatestBlockhash` answers (a validator accepts a hash of age 0 to 150; web3.js calls a
 * transaction expired once `getBlockHeight` passes that height, never before it is refused).
 */
import { createHash } from 'node:crypto';
import { getBase58Decoder } from '@solana/kit';

/** a blockhash stays valid this many slots after its own */
export const BLOCKHASH_WINDOW = 150;

const base58 = getBase58Decoder();

/** The sliding window of valid blockhashes. */
export class BlockhashWindow {
  private readonly valid = new Set<string>();
  private readonly order: string[] = [];
  private lastSlot = 0;

  constructor(private readonly genesisHash: string) {}

  /** Adds the blockhash of a new slot, dropping the ones that fell out of the window. */
  enter(slot: number): void {
    this.lastSlot = slot;
    const hash = base58.decode(createHash('sha256').update(`${this.genesisHash}:${slot}`).digest());
    this.order.push(hash);
    this.valid.add(hash);
    while (this.order.length > BLOCKHASH_WINDOW + 1) {
      const old = this.order.shift();
      if (old !== undefined) this.valid.delete(old);
    }
  }

  latest(): { blockhash: string; lastValidBlockHeight: number } {
    return { blockhash: this.order[this.order.length - 1] ?? '', lastValidBlockHeight: this.lastSlot + BLOCKHASH_WINDOW };
  }

  has(hash: string): boolean {
    return this.valid.has(hash);
  }
}
