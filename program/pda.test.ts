import { randomBytes } from 'node:crypto';
import { PublicKey } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { findProgramAddress, isOnCurve } from './pda.ts';

describe('program addresses', () => {
  it('isOnCurve says what web3.js says, for random bytes and the edge cases', () => {
    const samples = Array.from({ length: 4_000 }, () => randomBytes(32));
    const one = Buffer.alloc(32);
    one[0] = 1; // y = 1: x = 0
    const oneSigned = Buffer.from(one);
    oneSigned[31] = 0x80; // x = 0 with the sign bit set
    const pMinusOne = Buffer.from('ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', 'hex'); // y = p - 1
    const pItself = Buffer.from('edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', 'hex'); // y = p: not canonical
    for (const bytes of [...samples, one, oneSigned, pMinusOne, pItself, Buffer.alloc(32)]) {
      expect(isOnCurve(bytes), bytes.toString('hex')).toBe(PublicKey.isOnCurve(bytes));
    }
    const points = samples.filter((s) => PublicKey.isOnCurve(s)).length;
    expect(points).toBeGreaterThan(1_000); // about half are points: both answers were exercised
    expect(points).toBeLessThan(3_000);
  });

  it('findProgramAddress finds the address and bump web3.js finds', () => {
    const program = new PublicKey(randomBytes(32));
    for (let i = 0; i < 500; i++) {
      const seeds = [Buffer.from('bet'), randomBytes(32), randomBytes(8)];
      const [address, bump] = findProgramAddress(seeds, program);
      const [expected, expectedBump] = PublicKey.findProgramAddressSync(seeds, program);
      expect(address.toBase58()).toBe(expected.toBase58());
      expect(bump).toBe(expectedBump);
    }
  });
});
