import { Keypair, PublicKey } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { betPda, bettorPda } from '../../../program/index.ts';
import { betAddress, betAddressName, bettorAddressName } from './addresses.ts';

describe('memoised program addresses', () => {
  it('names the bet PDA of every seq asked, in any order, the latest and older ones alike', () => {
    const bettor = Keypair.generate().publicKey;
    const name = bettor.toBase58();
    for (const seq of [0n, 1n, 5n, 2n, 0n, 40n, 1n]) {
      const want = betPda(bettor, seq)[0].toBase58();
      expect(betAddressName({ bettor: name, seq })).toBe(want);
      expect(betAddress({ bettor: name, seq }).toBase58()).toBe(want);
    }
  });

  it('keeps what the mirror primed: a primed bet or bettor-state address is answered as primed', () => {
    const bettor = Keypair.generate().publicKey.toBase58();
    const bet = Keypair.generate().publicKey.toBase58();
    const state = Keypair.generate().publicKey.toBase58();
    betAddressName.prime({ bettor, seq: 3n }, bet);
    bettorAddressName.prime(bettor, state);
    expect(betAddressName({ bettor, seq: 3n })).toBe(bet);
    expect(bettorAddressName(bettor)).toBe(state);
    expect(betAddressName({ bettor, seq: 4n })).toBe(betPda(new PublicKey(bettor), 4n)[0].toBase58()); // derived beside the primed one
    expect(betAddressName({ bettor, seq: 3n })).toBe(bet);
  });

  it('names the bettor-state PDA, and the bets of the same bettor beside it', () => {
    const bettor = Keypair.generate().publicKey;
    expect(bettorAddressName(bettor.toBase58())).toBe(bettorPda(bettor)[0].toBase58());
    expect(betAddressName({ bettor: bettor.toBase58(), seq: 0n })).toBe(betPda(bettor, 0n)[0].toBase58());
    expect(bettorAddressName(bettor.toBase58())).toBe(bettorPda(bettor)[0].toBase58());
  });
});
