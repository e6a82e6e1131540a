import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { getBase58Decoder, getBase58Encoder } from '@solana/kit';
import { base58, keyBytes } from './svm.ts';

const kitText = getBase58Decoder();
const kitBytes = getBase58Encoder();

describe('keyBytes', () => {
  it('reads base58 keys exactly as the Solana codec does, leading zero bytes included', () => {
    const keys = Array.from({ length: 5_000 }, (_, i) => {
      const k = randomBytes(32);
      k.fill(0, 0, i % 5); // some keys begin with zero bytes (leading '1's)
      return k;
    });
    keys.push(Buffer.alloc(32), Buffer.alloc(32, 255));
    for (const k of keys) {
      const text = kitText.decode(k);
      expect(Buffer.from(keyBytes(text)).equals(k), text).toBe(true);
      expect(base58(keyBytes(text))).toBe(text);
    }
    expect([...keyBytes('11111111111111111111111111111111')]).toEqual(new Array(32).fill(0));
    expect(
      Buffer.from(keyBytes('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA')).equals(Buffer.from(kitBytes.encode('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'))),
    ).toBe(true);
  });

  it('leaves what is not a 32-byte key to the codec, which refuses bad characters', () => {
    expect(keyBytes('2')).toEqual(new Uint8Array([1]));
    expect(() => keyBytes('0OIl')).toThrow();
  });
});
