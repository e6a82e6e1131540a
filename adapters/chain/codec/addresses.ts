/**
 * The updown program's addresses (docs/architecture.md#the-contract): the config and
 * program-data PDAs, bet and bettor-state PDAs and associated token accounts, each derivation
 * memoised (and primed by the chain mirror with addresses it reads).
 *
 * The memos keep base58 names, not PublicKey objects: a PublicKey holds a BN of its bytes (about
 * 450 bytes of heap), a name 64, and the chain mirror keys its accounts by the very same string
 * (docs/operations.md#memory). A PublicKey is made from the name when an instruction needs one.
 */
import type { PublicKey } from '@solana/web3.js';
import { ASSOCIATED_TOKEN_PROGRAM_ID, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { betPda, bettorPda, configPda, priceRulesPda, programDataPda } from '../../../program/index.ts';
import { findProgramAddress } from '../../../program/pda.ts';
import type { BetRef } from '../port.ts';
import { keyOfName, nameOf } from '../account-layout.ts';
import { ResetMap } from '../../../kernel/reset-map.ts';

/** The config PDA. */
export const CONFIG = configPda()[0];
/** The price rules PDA beside the config (docs/decisions.md#signed-prices). */
export const PRICE_RULES = priceRulesPda()[0];
/** The program's program-data account. */
export const PROGRAM_DATA = programDataPda()[0];

/** A derivation with its results kept; `prime` records a result learned elsewhere (an account the program owns at that address). */
type Memo<K> = ((key: K) => string) & { prime(key: K, name: string): void };

/** PDA derivation costs curve checks in JS; the same bets and bettors are asked for again and again. */
function memo<K>(derive: (key: K) => PublicKey, keyOf: (key: K) => string, limit = 50_000): Memo<K> {
  const cache = new ResetMap<string, string>(limit);
  const remember = (k: string, name: string) => {
    cache.delete(k); // a primed key is the mirror's own string: the entry keeps that one, not the one a request made
    cache.set(k, name);
  };
  const lookup = (key: K): string => {
    const k = keyOf(key);
    let name = cache.get(k);
    if (name === undefined) {
      name = nameOf(derive(key));
      remember(k, name);
    }
    return name;
  };
  return Object.assign(lookup, { prime: (key: K, name: string) => remember(keyOf(key), name) });
}

/** Config PDA ["config"]. */
export function configAddress(): PublicKey {
  return CONFIG;
}

/** What is memoised of one bettor: its bettor state's address, and its bets' (the latest seq asked inline, a few others aside). */
interface BettorAddresses {
  /** the bettor's name, the very string the entry is keyed by */
  bettor: string;
  state: string | undefined;
  seq: bigint | undefined;
  bet: string | undefined;
  others: ResetMap<bigint, string> | undefined;
}

const BETTORS_HELD = 50_000;
/** bets' addresses held aside per bettor (older seqs: reclaims, a replay's predecessor) */
const OTHER_BETS_HELD = 16;
/** by bettor: one entry per bettor for both PDAs, keyed by the mirror's own string once it primed one (docs/operations.md#memory) */
const byBettor = new ResetMap<string, BettorAddresses>(BETTORS_HELD);

/** The entry of `bettor`, made when missing; `canonical` re-keys it with this very string (the mirror's). */
function entryOf(bettor: string, canonical = false): BettorAddresses {
  let entry = byBettor.get(bettor);
  if (entry === undefined) {
    entry = { bettor, state: undefined, seq: undefined, bet: undefined, others: undefined };
  } else if (!canonical) return entry;
  entry.bettor = bettor;
  byBettor.delete(bettor);
  byBettor.set(bettor, entry);
  return entry;
}

/** Keeps the address of the bet at `seq`: inline when it is the newest seq asked, else aside. */
function rememberBet(entry: BettorAddresses, seq: bigint, name: string): void {
  if (entry.seq === undefined || entry.seq === seq || seq > entry.seq) {
    if (entry.seq !== undefined && entry.bet !== undefined && entry.seq !== seq) {
      entry.others ??= new ResetMap(OTHER_BETS_HELD);
      entry.others.set(entry.seq, entry.bet);
    }
    entry.seq = seq;
    entry.bet = name;
  } else {
    entry.others ??= new ResetMap(OTHER_BETS_HELD);
    entry.others.set(seq, name);
  }
}

/**
 * The base58 name of the bet PDA ["bet", bettor, seq u64 LE]. Deriving one costs a curve check
 * (~0.06 ms with program/pda.ts, two on average); the chain mirror primes it with the address of every bet account it reads, so
 * settling thousands of bets it adopted derives none.
 */
export const betAddressName: Memo<BetRef> = Object.assign(
  (r: BetRef): string => {
    const entry = byBettor.get(r.bettor);
    const held = entry?.seq === r.seq ? entry.bet : entry?.others?.get(r.seq);
    if (held !== undefined) return held;
    const name = nameOf(betPda(keyOfName(r.bettor), r.seq)[0]);
    rememberBet(entryOf(r.bettor), r.seq, name);
    return name;
  },
  { prime: (r: BetRef, name: string) => rememberBet(entryOf(r.bettor, true), r.seq, name) },
);

/** `bettor` as the string the memo holds (the chain mirror's, once it primed one), so that a holder of it shares that string; `bettor` itself when none is held. */
export const heldBettorName = (bettor: string): string => byBettor.get(bettor)?.bettor ?? bettor;

/** Bet PDA ["bet", bettor, seq u64 LE] (see `betAddressName`). */
export const betAddress = (ref: BetRef): PublicKey => keyOfName(betAddressName(ref));

/** The base58 name of the bettor-state PDA ["bettor", pubkey] of a bettor named in base58; primed by the mirror like `betAddressName`. */
export const bettorAddressName: Memo<string> = Object.assign(
  (bettor: string): string => {
    const held = byBettor.get(bettor)?.state;
    if (held !== undefined) return held;
    const name = nameOf(bettorPda(keyOfName(bettor))[0]);
    entryOf(bettor).state = name;
    return name;
  },
  { prime: (bettor: string, name: string) => void (entryOf(bettor, true).state = name) },
);

/** Bettor-state PDA ["bettor", pubkey]. */
export const bettorAddress = (bettor: PublicKey): PublicKey => keyOfName(bettorAddressName(nameOf(bettor)));

const tokenAccountNames = memo(
  // getAssociatedTokenAddressSync's derivation, with the project's cheaper curve check (program/pda.ts)
  ([mint, owner]: [PublicKey, PublicKey]) =>
    findProgramAddress([owner.toBuffer(), TOKEN_PROGRAM_ID.toBuffer(), mint.toBuffer()], ASSOCIATED_TOKEN_PROGRAM_ID)[0],
  ([m, o]) => `${nameOf(m)}:${nameOf(o)}`,
);

/** The base58 name of the associated token account of `owner` for `mint` (owner may be a PDA). */
export const tokenAccountName = (mint: PublicKey, owner: PublicKey): string => tokenAccountNames([mint, owner]);

/** The associated token account of `owner` for `mint` (owner may be a PDA). */
export const tokenAccountOf = (mint: PublicKey, owner: PublicKey): PublicKey => keyOfName(tokenAccountName(mint, owner));
