import { Keypair, TransactionInstruction } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { CloseBatcher } from './close-batcher.ts';

const ix = (tag: number) => new TransactionInstruction({ programId: Keypair.generate().publicKey, keys: [], data: Buffer.from([tag]) });

describe('close batcher with preludes (docs/decisions.md#signed-prices)', () => {
  it('packs closes only with closes of the same prelude, the prelude first, at most 4 of them; the others 7 a pack', async () => {
    const sent: number[][] = [];
    const batcher = new CloseBatcher(async (ixs) => {
      sent.push(ixs.map((i) => i.data[0] as number));
      return { signature: `s${sent.length}`, slot: 1 };
    });
    const a = { key: 'a', instruction: ix(100) };
    const b = { key: 'b', instruction: ix(200) };
    await Promise.all([
      ...[1, 2, 3, 4, 5].map((n) => batcher.submit({ expireTime: 10n, instruction: ix(n), prelude: a })),
      ...[6, 7].map((n) => batcher.submit({ expireTime: 11n, instruction: ix(n), prelude: b })),
      ...[8, 9, 10, 11, 12, 13, 14, 15].map((n) => batcher.submit({ expireTime: 12n, instruction: ix(n) })),
    ]);
    expect(sent.sort((x, y) => (x[0] as number) - (y[0] as number))).toEqual([[8, 9, 10, 11, 12, 13, 14], [15], [100, 1, 2, 3, 4], [100, 5], [200, 6, 7]]);
  });
});
