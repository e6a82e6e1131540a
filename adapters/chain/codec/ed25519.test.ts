import { Keypair } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { memorySeqStore, PriceSigner } from '../../feed/price-signer.ts';
import { verifyMessage } from '../../feed/tick-message.ts';
import { ed25519TicksIx, exitPair, ED25519_PROGRAM_ID, isSigned, type SignedTick } from './ed25519.ts';

const signer = new PriceSigner(Keypair.generate(), memorySeqStore(7n));
const tick = (price: string, ts: number) => signer.sign({ symbol: 'solusdt', price, ts }) as SignedTick;

describe('Ed25519 instruction of signed ticks (docs/decisions.md#signed-prices)', () => {
  it('holds one record per tick, each naming key, signature and message in its own data', () => {
    const ticks = [tick('150', 1_000), tick('151', 2_000)];
    const ix = ed25519TicksIx(ticks);
    expect(ix.programId.equals(ED25519_PROGRAM_ID)).toBe(true);
    expect(ix.keys).toEqual([]);
    const d = ix.data;
    expect(d[0]).toBe(2);
    for (let i = 0; i < 2; i++) {
      const r = 2 + 14 * i;
      const [sig, sigIx, key, keyIx, msg, size, msgIx] = [0, 2, 4, 6, 8, 10, 12].map((o) => d.readUInt16LE(r + o));
      expect([sigIx, keyIx, msgIx, size]).toEqual([0xffff, 0xffff, 0xffff, 48]);
      expect(verifyMessage(d.subarray(key!, key! + 32), d.subarray(msg!, msg! + 48), d.subarray(sig!, sig! + 64))).toBe(true);
    }
  });

  it('forms the exit pair only from consecutive ticks of one signer straddling the expiry, at most 30 s before', () => {
    const [a, b, c] = [tick('150', 10_000), tick('151', 15_500), tick('152', 16_000)];
    expect(isSigned(a)).toBe(true);
    expect(exitPair(a, b, 15_000)).toEqual([a, b]);
    expect(exitPair(a, b, 15_500)).toBeUndefined(); // ts(n+1) must be after expiry
    expect(exitPair(a, c, 15_000)).toBeUndefined(); // not consecutive
    expect(exitPair(a, b, 9_999)).toBeUndefined();
    expect(exitPair({ ...a, ts: 15_000 - 30_001 }, b, 15_000)).toBeUndefined(); // stale
    const other = new PriceSigner(Keypair.generate(), memorySeqStore(BigInt(b.signed.seq))).sign({ symbol: 'solusdt', price: '1', ts: 15_500 }) as SignedTick;
    expect(exitPair(a, other, 15_000)).toBeUndefined(); // two signers
    expect(exitPair({ price: '150.00000000', ts: 10_000 }, b, 15_000)).toBeUndefined(); // unsigned
  });
});
