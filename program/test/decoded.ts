/** Program accounts as Anchor's BorshCoder decodes them (IDL field names), with u64/i64 as bigint. */
import { BN } from '@coral-xyz/anchor';
import type { PublicKey } from '@solana/web3.js';

/** The config PDA. */
export interface ConfigAccount {
  admin: PublicKey;
  pending_admin: PublicKey;
  relayer: PublicKey;
  mint: PublicKey;
  vault: PublicKey;
  counter: bigint;
  next_bet_id: bigint;
  min_amount: bigint;
  max_amount: bigint;
  multiplier_bps: bigint;
  expiry_seconds: bigint;
  refund_after_seconds: bigint;
  open_liability: bigint;
  paused: number;
  bump: number;
}

/** One bet PDA. */
export interface BetAccount {
  id: bigint;
  bettor: PublicKey;
  payer: PublicKey;
  seq: bigint;
  side: number;
  amount: bigint;
  entry_price: bigint;
  exit_price: bigint;
  bet_time: bigint;
  expire_time: bigint;
  status: number;
  bump: number;
}

/** One bettor PDA. */
export interface BettorStateAccount {
  bettor: PublicKey;
  payer: PublicKey;
  open_bet_id: bigint;
  has_open_bet: number;
  bet_count: bigint;
  reclaimed: bigint;
  bump: number;
}

/** Anchor decodes u64/i64 as BN: turn them into bigint for plain comparisons. */
export function bigintify(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, BN.isBN(v) ? BigInt((v as BN).toString()) : v]));
}
