/**
 * The contract's price rules account (docs/decisions.md#signed-prices), read and decoded: whether
 * bets need signed prices, the maximum entry tick age and the trusted price signers. The gateway
 * reads it to know which the contract requires; an absent account means relayer-attested prices.
 */
import { PublicKey } from '@solana/web3.js';
import { fetchAccount } from './account-reads.ts';
import { PRICE_RULES } from './codec/addresses.ts';
import type { RpcClient } from './rpc-client.ts';

/** A trusted price signer. */
export interface TrustedSigner {
  key: string;
  /** unix s */
  expiresAt: bigint;
  lastEntrySeq: bigint;
}

/** What the price rules say. */
export interface PriceRules {
  requireSigned: boolean;
  maxEntryAgeMs: bigint;
  signers: TrustedSigner[];
}

const SIZE = 211;
const SIGNER_LEN = 48;

/** Decodes the account's data (the packed layout of program/src/state.h `PriceRules`), or null when it is not one. */
export function decodePriceRules(data: Uint8Array): PriceRules | null {
  if (data.length !== SIZE) return null;
  const b = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const count = Math.min(b[18] ?? 0, 4);
  const signers: TrustedSigner[] = [];
  for (let i = 0; i < count; i++) {
    const at = 19 + SIGNER_LEN * i;
    signers.push({ key: new PublicKey(b.subarray(at, at + 32)).toBase58(), expiresAt: b.readBigInt64LE(at + 32), lastEntrySeq: b.readBigUInt64LE(at + 40) });
  }
  return { requireSigned: b[8] === 1, maxEntryAgeMs: b.readBigUInt64LE(10), signers };
}

/** The price rules on chain, or null when the account does not exist (prices are attested by the relayer). */
export async function readPriceRules(rpc: RpcClient): Promise<PriceRules | null> {
  const account = await fetchAccount(rpc, PRICE_RULES);
  return account ? decodePriceRules(account.data) : null;
}
