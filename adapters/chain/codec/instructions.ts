/**
 * Building the updown program's instructions (docs/architecture.md#the-contract): data encoded by
 * the IDL's Borsh coder, and each instruction's account list — order, writability, signers, fixed
 * program addresses, the config PDA — read from the IDL.
 */
import anchor from '@coral-xyz/anchor';
import { type PublicKey, TransactionInstruction, type AccountMeta } from '@solana/web3.js';
import { PROGRAM_ID, UPDOWN_IDL } from '../../../program/index.ts';
import type { BetRef, InitParams } from '../port.ts';
import type { Side } from '../../../kernel/domain.ts';
import { betAddress, bettorAddress, CONFIG, PRICE_RULES, PROGRAM_DATA } from './addresses.ts';
import { coder } from './idl.ts';
import { keyOfName } from '../account-layout.ts';

const { BN } = anchor;
type IdlAccount = { name: string; writable?: boolean; signer?: boolean; address?: string; pda?: unknown };
type IdlInstruction = { name: string; accounts: IdlAccount[] };
const bn = (n: bigint) => new BN(n.toString());

const INSTRUCTIONS = new Map((UPDOWN_IDL.instructions as unknown as IdlInstruction[]).map((i) => [i.name, i]));

/**
 * The account metas of instruction `name` in the IDL's order and flags; each account comes
 * from `given` by its IDL name, else from the IDL itself (a fixed address, or the config and
 * program-data PDAs).
 */
function metasOf(name: string, given: Record<string, PublicKey>): AccountMeta[] {
  const def = INSTRUCTIONS.get(name);
  if (!def) throw new Error(`IDL has no instruction ${name}`);
  return def.accounts.map((a) => {
    const pubkey =
      given[a.name] ??
      (a.address
        ? keyOfName(a.address)
        : a.name === 'config'
          ? CONFIG
          : a.name === 'price_rules'
            ? PRICE_RULES
            : a.name === 'program_data'
              ? PROGRAM_DATA
              : a.name === 'program'
                ? PROGRAM_ID
                : undefined);
    if (!pubkey) throw new Error(`instruction ${name} needs account ${a.name}`);
    return { pubkey, isWritable: a.writable === true, isSigner: a.signer === true };
  });
}

const instruction = (name: string, accounts: Record<string, PublicKey>, args: object = {}) =>
  new TransactionInstruction({ programId: PROGRAM_ID, keys: metasOf(name, accounts), data: coder.instruction.encode(name, args) });

/** initialize: the upgrade authority signs and pays; admin and relayer are distinct keys. */
export function initializeIx(
  a: { authority: PublicKey; admin: PublicKey; relayer: PublicKey; mint: PublicKey; vault: PublicKey },
  p: InitParams,
): TransactionInstruction {
  return instruction(
    'initialize',
    { ...a },
    {
      min_amount: bn(p.minAmount),
      max_amount: bn(p.maxAmount),
      multiplier_bps: bn(p.multiplierBps),
      expiry_seconds: bn(p.expirySeconds),
      refund_after_seconds: bn(p.refundAfterSeconds),
    },
  );
}

/** Accounts of a place_bet / place_bet_delegated instruction. */
export interface PlaceBetAccounts {
  bettor: PublicKey;
  /** the bettor state's bet_count now (0 when it has none): the new bet's address */
  seq: bigint;
  bettorToken: PublicKey;
  vault: PublicKey;
  relayer: PublicKey;
  /** true: the relayer moves the stake as SPL delegate (place_bet_delegated) */
  delegated: boolean;
}

/** Where the Ed25519 instruction that verified a bet's entry tick is: its index in the transaction and the signature record in it. */
export interface EntryTickRef {
  instruction: number;
  signature: number;
}

/** Where a close's exit ticks are: the Ed25519 instruction and its records of ticks n and n+1. */
export interface ExitTicksRef {
  instruction: number;
  first: number;
  next: number;
}

/**
 * Where the Ed25519 instruction that verified a delegated bet's intent is (its index in the
 * transaction and the signature record in it), and the intent's valid-until time, unix s
 * (docs/decisions.md#bet-intents).
 */
export interface IntentRef {
  instruction: number;
  signature: number;
  validUntil: bigint;
}

/**
 * place_bet / place_bet_delegated: a new bet at ["bet", bettor, seq]; `tick` when signed prices are
 * on (docs/decisions.md#signed-prices); `intent` for a delegated bet, which the contract refuses
 * without its bettor's signed intent (docs/decisions.md#bet-intents).
 */
export function placeBetIx(
  a: PlaceBetAccounts,
  side: Side,
  amount: bigint,
  entryPrice: bigint,
  tick?: EntryTickRef,
  intent?: IntentRef,
): TransactionInstruction {
  if (a.delegated && !intent) throw new Error("place_bet_delegated needs the bettor's signed intent: pass where its Ed25519 instruction is");
  const args = {
    side: side === 'UP' ? 0 : 1,
    amount: bn(amount),
    entry_price: bn(entryPrice),
    tick_instruction: tick?.instruction ?? 0,
    tick_signature: tick?.signature ?? 0,
  };
  return instruction(
    a.delegated ? 'place_bet_delegated' : 'place_bet',
    {
      bet: betAddress({ bettor: a.bettor.toBase58(), seq: a.seq }),
      bettor_state: bettorAddress(a.bettor),
      bettor: a.bettor,
      bettor_token: a.bettorToken,
      vault: a.vault,
      relayer: a.relayer,
    },
    a.delegated && intent ? { ...args, intent_instruction: intent.instruction, intent_signature: intent.signature, valid_until: bn(intent.validUntil) } : args,
  );
}

/** Accounts that name one bet and where its money goes. */
export interface BetAccounts {
  ref: BetRef;
  bettorToken: PublicKey;
  vault: PublicKey;
}

/** close_bet(exit_price): the relayer settles an expired bet; `ticks` when signed prices are on (docs/decisions.md#signed-prices). */
export function closeBetIx(a: BetAccounts & { relayer: PublicKey }, exitPrice: bigint, ticks?: ExitTicksRef): TransactionInstruction {
  const bettor = keyOfName(a.ref.bettor);
  return instruction(
    'close_bet',
    { bet: betAddress(a.ref), bettor_state: bettorAddress(bettor), bettor_token: a.bettorToken, vault: a.vault, relayer: a.relayer },
    { exit_price: bn(exitPrice), tick_instruction: ticks?.instruction ?? 0, tick_first: ticks?.first ?? 0, tick_next: ticks?.next ?? 0 },
  );
}

/** refund_expired: anyone returns the stake once expire_time + refund_after_seconds has passed. */
export function refundExpiredIx(a: BetAccounts): TransactionInstruction {
  const bettor = keyOfName(a.ref.bettor);
  return instruction('refund_expired', { bet: betAddress(a.ref), bettor_state: bettorAddress(bettor), bettor_token: a.bettorToken, vault: a.vault });
}

/** reclaim_bet: the relayer closes a settled bet's account, its rent back to `payer`. */
export function reclaimBetIx(a: { ref: BetRef; payer: PublicKey; relayer: PublicKey }): TransactionInstruction {
  return instruction('reclaim_bet', { bet: betAddress(a.ref), bettor_state: bettorAddress(keyOfName(a.ref.bettor)), payer: a.payer, relayer: a.relayer });
}

/** set_price_rules(require_signed, max_entry_age_ms): admin only; creates the price rules account on first use (docs/decisions.md#signed-prices). */
export function setPriceRulesIx(admin: PublicKey, requireSigned: boolean, maxEntryAgeMs: bigint): TransactionInstruction {
  return instruction('set_price_rules', { admin }, { require_signed: requireSigned ? 1 : 0, max_entry_age_ms: bn(maxEntryAgeMs) });
}

/** add_price_signer(signer, expires_at): admin only; trusts a price signer until `expiresAt` (unix s). */
export function addPriceSignerIx(admin: PublicKey, signer: PublicKey, expiresAt: bigint): TransactionInstruction {
  return instruction('add_price_signer', { admin }, { signer, expires_at: bn(expiresAt) });
}

/** set_paused(paused): admin only; stops new bets, settlement goes on. */
export function setPausedIx(admin: PublicKey, paused: boolean): TransactionInstruction {
  return instruction('set_paused', { admin }, { paused: paused ? 1 : 0 });
}

/** withdraw(amount): admin only, at most the vault's surplus above the open liability. */
export function withdrawIx(a: { admin: PublicKey; vault: PublicKey; destination: PublicKey }, amount: bigint): TransactionInstruction {
  return instruction('withdraw', { ...a }, { amount: bn(amount) });
}
