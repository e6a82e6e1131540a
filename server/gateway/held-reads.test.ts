import { PublicKey } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import type { Balance, ChainPort } from '../../adapters/chain/port.ts';
import { heldReads } from './held-reads.ts';

const KEY = new PublicKey('9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin');
const NAME = KEY.toBase58();

/** A chain whose held values the test sets; counts the balance reads. */
function chain() {
  const state = { version: 1 as number | undefined, balance: { lamports: 5_000_000_000n, tokenUnits: 10_000_000_000n } as Balance | undefined, reads: 0 };
  const port = {
    heldVersion: () => state.version,
    heldBalances: () => {
      state.reads++;
      return state.balance;
    },
  } as unknown as ChainPort;
  return { state, port };
}

describe('the read routes held bodies', () => {
  it('a balance body is reused while nothing held changed, remade when a value changed, and absent when memory cannot answer', () => {
    const { state, port } = chain();
    const held = heldReads(port);
    const first = held.balance(NAME, () => KEY);
    expect(JSON.parse(first?.text ?? '')).toEqual({ sol: 5, solLamports: 5_000_000_000, tokenUnits: '10000000000', tokenHuman: '10000.000000' });
    expect(held.balance(NAME, () => KEY)).toBe(first);
    expect(state.reads).toBe(1);

    state.version = 2; // something else changed: the values are read again, the same body kept
    expect(held.balance(NAME, () => KEY)).toBe(first);
    expect(state.reads).toBe(2);

    state.version = 3;
    state.balance = { lamports: 4_000_000_000n, tokenUnits: 9_000_000_000n };
    expect(JSON.parse(held.balance(NAME, () => KEY)?.text ?? '')).toMatchObject({ sol: 4, tokenUnits: '9000000000' });

    state.version = undefined; // the mirror cannot answer now: the route reads the chain
    expect(held.balance(NAME, () => KEY)).toBeUndefined();
    state.version = 4;
    state.balance = undefined; // a wallet not watched yet
    expect(held.balance(NAME, () => KEY)).toBeUndefined();
  });
});
