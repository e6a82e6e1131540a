/**
 * Test funds for an address (spec: faucet): airdrop 5 SOL, and mint 10000 tokens to its
 * associated token account, creating that account when missing. The operator key is the
 * mint authority of the local test mint.
 */
import * as v from 'valibot';
import { LAMPORTS_PER_SOL, type Keypair, type PublicKey } from '@solana/web3.js';
import { createAssociatedTokenAccountIdempotentInstruction, createMintToInstruction } from '@solana/spl-token';
import { tokenAccountOf } from './codec.ts';
import type { RpcClient } from './rpc-client.ts';
import type { TxSender } from './tx-sender.ts';

/** 5 SOL */
export const FAUCET_LAMPORTS = 5n * BigInt(LAMPORTS_PER_SOL);
/** 10000 tokens of a 6-decimal mint */
export const FAUCET_TOKEN_UNITS = 10_000n * 1_000_000n;

/** Airdrops SOL and mints test tokens to `address`. */
export async function fundFromFaucet(rpc: RpcClient, sender: TxSender, operator: Keypair, mint: PublicKey, address: PublicKey): Promise<void> {
  const airdrop = await rpc.call('requestAirdrop', [address.toBase58(), Number(FAUCET_LAMPORTS), { commitment: 'confirmed' }], v.string());
  await sender.confirm('airdrop', airdrop);
  const ata = tokenAccountOf(mint, address);
  await sender.sendAndConfirm(
    'faucet mint',
    [createAssociatedTokenAccountIdempotentInstruction(operator.publicKey, ata, address, mint), createMintToInstruction(mint, ata, operator.publicKey, FAUCET_TOKEN_UNITS)],
    operator,
  );
}
