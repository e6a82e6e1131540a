/**
 * The signed ticks a bet's evidence carries: the entry tick at its price, and the pair n, n+1 that
 * straddles its expiry at its exit price, or null where the history cannot show them.
 */
import { Keypair } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { memorySeqStore, PriceSigner } from '../../../adapters/feed/price-signer.ts';
import { createMemoryPriceHistory } from '../../../adapters/store/price-history/memory.ts';
import { entryEvidence, signedExitPair } from './evidence.ts';
import { verifyTick } from '../../../adapters/feed/tick-verify.ts';
import type { Tick } from '../../../adapters/feed/port.ts';

const T0 = 1_800_000_000_000;

/** Ticks every 500 ms from T0 at the given prices, signed (seq 1, 2, ...) unless `unsigned`. */
function ticks(prices: string[], unsigned = false): Tick[] {
  const signer = new PriceSigner(Keypair.generate(), memorySeqStore());
  return prices.map((price, i) => {
    const tick = { symbol: 'solusdt' as const, price, ts: T0 + 500 * i };
    const { symbol: _symbol, ...stored } = unsigned ? tick : signer.sign(tick);
    return stored;
  });
}

describe('signed evidence', () => {
  it('takes the newest signed tick at the entry price, and none from an unsigned feed', async () => {
    const history = createMemoryPriceHistory();
    const held = ticks(['150.00000000', '151.00000000', '150.00000000', '152.00000000']);
    for (const t of held) await history.append(t);
    const found = await entryEvidence(history, 150_00000000, T0 + 1_600, 'synthetic');
    expect(found.entry).toEqual({ price: 150_00000000, ts: T0 + 1_000, source: 'synthetic' });
    expect(found.signed).toMatchObject({ price: 150_00000000, ts: T0 + 1_000, seq: 3, signer: held[2]?.signed?.signer });
    expect(verifyTick({ price: '150.00000000', ts: T0 + 1_000, signed: { seq: 3, signature: found.signed!.signature, signer: found.signed!.signer } })).toBe(
      'verified',
    );

    const plain = createMemoryPriceHistory();
    for (const t of ticks(['150.00000000'], true)) await plain.append(t);
    expect((await entryEvidence(plain, 150_00000000, T0, 'synthetic')).signed).toBeNull();
  });

  it('pairs the last tick at or before expiry with the next one, at the exit price only', () => {
    const [a, b, c] = ticks(['150.00000000', '151.00000000', '152.00000000']);
    const expiry = (T0 + 600) / 1000; // between b (T0+500) and c (T0+1000)
    expect(signedExitPair(b, c, expiry, 151_00000000)?.map((t) => t.seq)).toEqual([2, 3]);
    expect(signedExitPair(b, c, expiry, 150_00000000)).toBeNull(); // another exit price
    expect(signedExitPair(a, c, expiry, 150_00000000)).toBeNull(); // not consecutive
    expect(signedExitPair(c, undefined, expiry, 152_00000000)).toBeNull(); // no tick after the expiry yet
  });
});
