/**
 * What the attack tests share: the stake, price and funds they use, a chain with mint and vault,
 * and a funded key that has no role.
 */
import { Keypair } from '@solana/web3.js';
import { BetChain } from '../svm.ts';

export const STAKE = 1_000_000_000n;
export const PRICE = 15_000_000_000n;
export const FUNDS = 100_000_000_000n;

export function newChain(): BetChain {
  const fresh = new BetChain();
  fresh.createMintAndVault();
  return fresh;
}

/** A funded key that has no role. */
export function stranger(on: BetChain): Keypair {
  const key = Keypair.generate();
  on.airdrop(key.publicKey, 10_000_000_000n);
  return key;
}
