/**
 * The shapes the program tests' harness speaks in: what a sent transaction did, the contract
 * parameters used by default, bettors, placed bets and decoded events.
 */
import type { Keypair, PublicKey } from '@solana/web3.js';

/** What a transaction did: compute units and logs, or the failing custom code (when there is one). */
export type Sent = { ok: true; cu: number; logs: string[] } | { ok: false; code: number | null; anchorName: string | null; error: string; logs: string[] };

/** Contract parameters used unless a test says otherwise (6-decimal token: 100..10000 units). */
export const DEFAULT_PARAMS = {
  minAmount: 100_000_000n,
  maxAmount: 10_000_000_000n,
  multiplierBps: 13_000n,
  expirySeconds: 15n,
  refundAfterSeconds: 60n,
};
export type Params = typeof DEFAULT_PARAMS;
/** Clock.unix_timestamp at the start of every test chain. */
export const START_TIME = 1_763_700_000n;

/** One bettor: key, token account, and the bettor PDA. */
export interface Bettor {
  key: Keypair;
  token: PublicKey;
  state: PublicKey;
}

/** A placed bet: its global id, its seq (address seed) and its address. */
export interface PlacedBet {
  id: bigint;
  seq: bigint;
  bet: PublicKey;
  sent: Extract<Sent, { ok: true }>;
}

/** One decoded event (IDL field names, u64/i64 as bigint). */
export interface DecodedEvent {
  name: string;
  data: Record<string, unknown>;
}

/** Accounts of an instruction by IDL name, overriding the defaults (attacks pass others). */
export type Accounts = Partial<Record<string, PublicKey>>;
