/**
 * The chain adapter's reads against the local chain: the config the fresh data dir was
 * initialised with, the genesis hash and cluster kind, and nothing read for what does not exist.
 */
import { describe, expect, it } from 'vitest';
import { Keypair } from '@solana/web3.js';
import type { RpcChain } from '../../../adapters/chain/rpc-chain/index.ts';
import { TEST_PARAMS, type TestChain } from '../support.ts';
import { PRICE, refusal, refOf, onLocalChain } from './fixtures.ts';

describe('RpcChain on the local chain', () => {
  let t: TestChain;
  let chain: RpcChain;
  onLocalChain((started, adapter) => {
    t = started;
    chain = adapter;
  });

  it('reads the config the fresh data dir was initialised with: distinct admin and relayer, no liability yet', async () => {
    const cfg = await chain.readConfig();
    expect(cfg).toMatchObject({
      admin: t.keys.admin.publicKey.toBase58(),
      pendingAdmin: null,
      relayer: t.keys.relayer.publicKey.toBase58(),
      mint: t.chain.mint,
      nextBetId: expect.any(BigInt),
      minAmount: TEST_PARAMS.minAmount,
      maxAmount: TEST_PARAMS.maxAmount,
      multiplierBps: TEST_PARAMS.multiplierBps,
      expirySeconds: TEST_PARAMS.expirySeconds,
      refundAfterSeconds: TEST_PARAMS.refundAfterSeconds,
      openLiability: 0n,
      paused: false,
    });
    expect(cfg!.admin).not.toBe(cfg!.relayer);
    expect(await chain.vaultBalance()).toBe(1_000_000n * 1_000_000n);
  });

  it('knows its genesis hash and calls the chain local only when declared', async () => {
    expect(await chain.genesisHash()).toBe(t.chain.genesisHash);
    expect(await chain.clusterKind()).toBe('local');
    expect(await t.adapter({ knownLocalGenesis: [] }).clusterKind()).toBe('unknown');
  });

  it('reads nothing for a bet or bettor that does not exist; closing it is refused', async () => {
    const nobody = Keypair.generate();
    expect(await chain.readBet(refOf(nobody, 0n))).toBeNull();
    expect(await chain.readBettorState(nobody.publicKey)).toBeNull();
    expect(await chain.scanBetsOf(nobody.publicKey)).toEqual([]);
    expect((await refusal(chain.closeBet(refOf(nobody, 0n), PRICE))).errorName).toMatch(/InvalidAccount/);
  });
});
