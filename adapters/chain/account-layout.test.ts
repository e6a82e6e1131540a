import anchor from '@coral-xyz/anchor';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { UPDOWN_IDL } from '../../program/index.ts';
import { keyName, structReader } from './account-layout.ts';

const coder = new anchor.BorshCoder(UPDOWN_IDL);

/** Anchor's decoding, as plain values: BN as bigint, PublicKey as base58, numbers as they are. */
function anchorDecode(name: string, data: Buffer): Record<string, unknown> {
  const raw = coder.accounts.decode<Record<string, unknown>>(name, data);
  return Object.fromEntries(
    Object.entries(raw).map(([k, v]) => {
      if (v instanceof anchor.BN) return [k, BigInt((v as { toString(): string }).toString())];
      if (v instanceof anchor.web3.PublicKey) return [k, (v as anchor.web3.PublicKey).toBase58()];
      return [k, v];
    }),
  );
}

describe('structReader', () => {
  for (const name of ['Config', 'Bet', 'BettorState']) {
    it(`reads ${name} exactly as Anchor's coder does, for any bytes`, () => {
      const read = structReader(UPDOWN_IDL, name);
      const size = coder.accounts.size(name);
      const disc = Buffer.from(coder.accounts.accountDiscriminator(name));
      for (let i = 0; i < 300; i++) {
        const data = Buffer.concat([disc, randomBytes(size - 8)]);
        // i64 fields are signed in both readers; bool-like u8 fields are numbers in both
        expect(read(data)).toEqual(anchorDecode(name, data));
      }
    });
  }

  it('refuses an account shorter than its struct', () => {
    expect(() => structReader(UPDOWN_IDL, 'Bet')(Buffer.alloc(20))).toThrow(/expected at least/);
  });

  it('names a key the same from any view of the same bytes', () => {
    const bytes = randomBytes(64);
    expect(keyName(bytes.subarray(16, 48))).toBe(keyName(Buffer.from(bytes.subarray(16, 48))));
    expect(keyName(bytes.subarray(16, 48))).toBe(new anchor.web3.PublicKey(bytes.subarray(16, 48)).toBase58());
  });
});
