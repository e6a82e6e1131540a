/**
 * What the chain adapter tests share: a local chain per suite, stake, price and the payout of a
 * win, the program refusal a promise ends in, a signed bet to place, and a bet's reference.
 */
import type { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll } from 'vitest';
import type { RpcChain } from '../../../adapters/chain/rpc-chain/index.ts';
import { ProgramRefusal, type PlaceBet } from '../../../adapters/chain/port.ts';
import { startTestChain, type TestChain } from '../support.ts';

export const STAKE = 1_000_000_000n; // 1000 tokens
export const PRICE = 150_00000000n;
export const WIN = (STAKE * 13_000n) / 10_000n;

export async function refusal(p: Promise<unknown>): Promise<ProgramRefusal> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof ProgramRefusal)) throw new Error(`expected a ProgramRefusal, got ${String(err)}`);
  return err;
}

export const signed = (bettor: Keypair, over: Partial<PlaceBet> = {}): PlaceBet => ({
  stake: { kind: 'signer', bettor },
  side: 'UP',
  amount: STAKE,
  entryPrice: PRICE,
  ...over,
});
export const refOf = (bettor: Keypair, seq: bigint) => ({ bettor: bettor.publicKey.toBase58(), seq });

/** Starts a local chain for the suite and stops it after; `started` gets it and its adapter. */
export function onLocalChain(started: (t: TestChain, chain: RpcChain) => void): void {
  let t: TestChain | undefined;
  beforeAll(async () => {
    t = await startTestChain();
    started(t, t.adapter());
  });
  afterAll(() => t?.stop());
}
