/**
 * Decoding the updown program's accounts (docs/architecture.md#the-contract): Config, Bet and
 * BettorState read at the IDL's field offsets (`../account-layout.ts`, checked against the coder),
 * and what kind a program account is by its discriminator.
 */
import { PublicKey } from '@solana/web3.js';
import { UPDOWN_IDL } from '../../../program/index.ts';
import type { BetAccount, BettorState, ContractConfig } from '../port.ts';
import { structReader, type FieldValue } from '../account-layout.ts';
import type { BetStatus } from '../../../kernel/domain.ts';
import { coder } from './idl.ts';

const ZERO_KEY = PublicKey.default.toBase58();
const readConfig = structReader(UPDOWN_IDL, 'Config');
const readBet = structReader(UPDOWN_IDL, 'Bet');
const readBettorState = structReader(UPDOWN_IDL, 'BettorState');
const u64 = (v: FieldValue | undefined): bigint => v as bigint;
const key = (v: FieldValue | undefined): string => v as string;

/** Decodes the Config account. */
export function decodeConfig(data: Uint8Array): ContractConfig {
  const c = readConfig(data);
  const pending = key(c.pending_admin);
  return {
    admin: key(c.admin),
    pendingAdmin: pending === ZERO_KEY ? null : pending,
    relayer: key(c.relayer),
    mint: key(c.mint),
    vault: key(c.vault),
    counter: u64(c.counter),
    nextBetId: u64(c.next_bet_id),
    minAmount: u64(c.min_amount),
    maxAmount: u64(c.max_amount),
    multiplierBps: u64(c.multiplier_bps),
    expirySeconds: u64(c.expiry_seconds),
    refundAfterSeconds: u64(c.refund_after_seconds),
    openLiability: u64(c.open_liability),
    paused: c.paused !== 0,
  };
}

/** Decodes a Bet account. */
export function decodeBet(data: Uint8Array): BetAccount {
  const b = readBet(data);
  return {
    id: u64(b.id),
    bettor: key(b.bettor),
    payer: key(b.payer),
    seq: u64(b.seq),
    side: b.side === 0 ? 'UP' : 'DOWN',
    amount: u64(b.amount),
    entryPrice: u64(b.entry_price),
    exitPrice: u64(b.exit_price),
    betTime: u64(b.bet_time),
    expireTime: u64(b.expire_time),
    status: b.status as BetStatus,
  };
}

/** Decodes a BettorState account. */
export function decodeBettorState(data: Uint8Array): BettorState {
  const s = readBettorState(data);
  return {
    bettor: key(s.bettor),
    payer: key(s.payer),
    openBetId: s.has_open_bet !== 0 ? u64(s.open_bet_id) : null,
    betCount: u64(s.bet_count),
    reclaimed: u64(s.reclaimed),
  };
}

/** What a program account is, by its discriminator. */
export function accountKind(data: Uint8Array): 'config' | 'bet' | 'bettor' | null {
  if (data.length < 8) return null;
  const disc = Buffer.from(data.subarray(0, 8));
  if (disc.equals(DISC.Bet)) return 'bet';
  if (disc.equals(DISC.BettorState)) return 'bettor';
  if (disc.equals(DISC.Config)) return 'config';
  return null;
}
const DISC = {
  Bet: Buffer.from(coder.accounts.accountDiscriminator('Bet')),
  BettorState: Buffer.from(coder.accounts.accountDiscriminator('BettorState')),
  Config: Buffer.from(coder.accounts.accountDiscriminator('Config')),
};
