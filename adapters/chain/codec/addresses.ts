/**
 * The updown program's addresses (docs/architecture.md#the-contract): the config and
 * program-data PDAs, bet and bettor-state PDAs and associated token accounts, each derivation
 * memoised (and primed by the chain mirror with addresses it reads).
 */
import { PublicKey } from '@solana/web3.js';
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { betPda, bettorPda, configPda, programDataPda } from '../../../program/index.ts';
import type { BetRef } from '../port.ts';
import { nameOf } from '../account-layout.ts';

/** The config PDA. */
export const CONFIG = configPda()[0];
/** The program's program-data account. */
export const PROGRAM_DATA = programDataPda()[0];

/** PDA derivation costs curve checks in JS; the same bets and bettors are asked for again and again. */
/** A derivation with its results kept; `prime` records a result learned elsewhere (an account the program owns at that address). */
type Memo<K, V> = ((key: K) => V) & { prime(key: K, value: V): void };

function memo<K, V>(derive: (key: K) => V, keyOf: (key: K) => string, limit = 50_000): Memo<K, V> {
  const cache = new Map<string, V>();
  const remember = (k: string, value: V) => {
    if (cache.size >= limit) cache.clear();
    cache.set(k, value);
  };
  const lookup = (key: K): V => {
    const k = keyOf(key);
    let value = cache.get(k);
    if (value === undefined) {
      value = derive(key);
      remember(k, value);
    }
    return value;
  };
  return Object.assign(lookup, { prime: (key: K, value: V) => remember(keyOf(key), value) });
}

/** Config PDA ["config"]. */
export function configAddress(): PublicKey {
  return CONFIG;
}

/**
 * Bet PDA ["bet", bettor, seq u64 LE]. Deriving one costs a curve check (~0.2 ms in JS); the chain
 * mirror primes it with the address of every bet account it reads, so settling thousands of bets
 * it adopted derives none.
 */
export const betAddress: Memo<BetRef, PublicKey> = memo(
  (r: BetRef) => betPda(new PublicKey(r.bettor), r.seq)[0],
  (r) => `${r.bettor}:${r.seq}`,
);

/** Bettor-state PDA ["bettor", pubkey]; primed by the mirror like `betAddress`. */
export const bettorAddress: Memo<PublicKey, PublicKey> = memo(
  (b: PublicKey) => bettorPda(b)[0],
  (b) => nameOf(b),
);

/** The associated token account of `owner` for `mint` (owner may be a PDA). */
export const tokenAccountOf: (mint: PublicKey, owner: PublicKey) => PublicKey = (() => {
  const derive = memo(
    ([mint, owner]: [PublicKey, PublicKey]) => getAssociatedTokenAddressSync(mint, owner, true),
    ([m, o]) => `${nameOf(m)}:${nameOf(o)}`,
  );
  return (mint: PublicKey, owner: PublicKey) => derive([mint, owner]);
})();
