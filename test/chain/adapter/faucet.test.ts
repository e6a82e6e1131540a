/**
 * The chain adapter's faucet against the local chain: each call is a grant of its own
 * (docs/gateway-api.md#faucet).
 */
import { describe, expect, it } from 'vitest';
import { Keypair } from '@solana/web3.js';
import type { RpcChain } from '../../../adapters/chain/rpc-chain/index.ts';
import { onLocalChain } from './fixtures.ts';

describe('RpcChain on the local chain', () => {
  let chain: RpcChain;
  onLocalChain((_t, adapter) => {
    chain = adapter;
  });

  it('faucet grants 5 SOL and 10000 tokens in one transaction, creating the token account, each time it is asked', async () => {
    const who = Keypair.generate();
    expect(await chain.balances(who.publicKey)).toEqual({ lamports: 0n, tokenUnits: 0n });
    expect(await chain.faucet(who.publicKey)).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    expect(await chain.balances(who.publicKey)).toEqual({ lamports: 5_000_000_000n, tokenUnits: 10_000_000_000n });
    await chain.faucet(who.publicKey); // same blockhash window, same instructions: still a second grant
    expect(await chain.balances(who.publicKey)).toEqual({ lamports: 10_000_000_000n, tokenUnits: 20_000_000_000n });
  });

  it('six concurrent faucet calls for one address are six grants, each with its own signature', async () => {
    const who = Keypair.generate();
    const signatures = await Promise.all(Array.from({ length: 6 }, () => chain.faucet(who.publicKey)));
    expect(new Set(signatures).size).toBe(6);
    expect(await chain.balances(who.publicKey)).toEqual({ lamports: 30_000_000_000n, tokenUnits: 60_000_000_000n });
  });
});
