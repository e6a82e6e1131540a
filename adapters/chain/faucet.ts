/**
 * Test funds for an address (docs/gateway-api.md#faucet): 5 SOL and 10000 tokens (minted to its associated
 * token account, created when missing) in ONE transaction, so a grant is all or nothing. The
 * mint authority of the local test mint pays the SOL (and the fee) and mints the tokens; it is
 * topped up by airdrop (the faucet runs only on the local chain) when it runs low. A memo with a fresh nonce
 * makes every grant its own transaction: two grants in one blockhash window are two grants.
 */
import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { LAMPORTS_PER_SOL, PublicKey, SystemProgram, TransactionInstruction, type Keypair } from '@solana/web3.js';
import { createAssociatedTokenAccountIdempotentInstruction, createMintToInstruction } from '@solana/spl-token';
import { tokenAccountOf } from './codec.ts';
import type { RpcClient } from './rpc-client.ts';
import type { Landed, TxSender } from './tx-sender.ts';

/** 5 SOL */
export const FAUCET_LAMPORTS = 5n * BigInt(LAMPORTS_PER_SOL);
/** 10000 tokens of a 6-decimal mint */
export const FAUCET_TOKEN_UNITS = 10_000n * 1_000_000n;

/** The SPL Memo program (on every cluster, and preloaded in LiteSVM). */
const MEMO_PROGRAM = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');

/**
 * A memo with a fresh nonce: two transactions with the same intent (two faucet grants, two
 * placements for one bettor from two gateways at the same moment) must never be the same
 * transaction, or the second would be taken for the first one's retry.
 */
export const uniqueMemo = (what: string): TransactionInstruction => memo(`${what} ${randomUUID()}`);
/** Below this the mint authority asks the local chain for more SOL before granting. */
const OPERATOR_LOW_WATER = 1_000n * BigInt(LAMPORTS_PER_SOL);
const OPERATOR_TOP_UP = 100_000 * LAMPORTS_PER_SOL;

const memo = (text: string) => new TransactionInstruction({ programId: MEMO_PROGRAM, keys: [], data: Buffer.from(text, 'utf8') });

/** Tops the mint authority up when low, then grants SOL and test tokens to `address` in one transaction; resolves once it landed, with its signature and slot. */
export async function fundFromFaucet(rpc: RpcClient, sender: TxSender, mintAuthority: Keypair, mint: PublicKey, address: PublicKey): Promise<Landed> {
  const operator = mintAuthority;
  const { value: balance } = await rpc.call('getBalance', [operator.publicKey.toBase58(), { commitment: 'confirmed' }], v.object({ value: v.number() }));
  if (BigInt(balance) < OPERATOR_LOW_WATER) {
    await sender.confirm(
      'faucet top-up',
      await rpc.call('requestAirdrop', [operator.publicKey.toBase58(), OPERATOR_TOP_UP, { commitment: 'confirmed' }], v.string()),
    );
  }
  const ata = tokenAccountOf(mint, address);
  return sender.land(
    'faucet grant',
    [
      SystemProgram.transfer({ fromPubkey: operator.publicKey, toPubkey: address, lamports: FAUCET_LAMPORTS }),
      createAssociatedTokenAccountIdempotentInstruction(operator.publicKey, ata, address, mint),
      createMintToInstruction(mint, ata, operator.publicKey, FAUCET_TOKEN_UNITS),
      uniqueMemo('faucet'),
    ],
    operator,
  );
}
