/**
 * The updown program as the gateway sees it: IDL, program id, PDAs, account decoding and
 * instruction building, all driven by the IDL (docs/architecture.md#the-contract): instruction
 * data is encoded by Anchor's `BorshCoder`, accounts are read at the IDL's field offsets
 * (`account-layout.ts`, checked against the coder), and each instruction's account list — order,
 * writability, signers, fixed program addresses, the config PDA — is read from the IDL, so
 * nothing about the program's interface is written twice. Field offsets used in
 * getProgramAccounts filters are computed from the IDL layout too.
 */
import anchor from '@coral-xyz/anchor';
import { PublicKey, TransactionInstruction, type AccountMeta } from '@solana/web3.js';
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { PROGRAM_ID, UPDOWN_IDL, betPda, bettorPda, configPda, errorByCode, programDataPda } from '../../program/index.ts';
import type { BetAccount, BetRef, BettorState, ContractConfig, InitParams } from './port.ts';
import { nameOf, structReader, type FieldValue } from './account-layout.ts';
import type { BetStatus, Side } from '../../kernel/domain.ts';

const { BorshCoder, BN } = anchor;

/** The program id (re-exported from the program module). */
export { PROGRAM_ID };

const coder = new BorshCoder(UPDOWN_IDL);
type IdlStruct = { name: string; type: { kind: string; fields?: { name: string; type: unknown }[] } };
type IdlAccount = { name: string; writable?: boolean; signer?: boolean; address?: string; pda?: unknown };
type IdlInstruction = { name: string; accounts: IdlAccount[] };

const FIELD_SIZES: Record<string, number> = { u8: 1, i8: 1, u16: 2, i16: 2, u32: 4, i32: 4, u64: 8, i64: 8, pubkey: 32, bool: 1 };

/** Byte offset of `field` in account `account` (8-byte discriminator included), from the IDL. */
export function fieldOffset(account: string, field: string): number {
  const def = (UPDOWN_IDL.types as IdlStruct[] | undefined)?.find((t) => t.name === account);
  if (!def?.type.fields) throw new Error(`IDL has no struct ${account}`);
  let offset = 8;
  for (const f of def.type.fields) {
    if (f.name === field) return offset;
    const size = typeof f.type === 'string' ? FIELD_SIZES[f.type] : undefined;
    if (size === undefined) throw new Error(`IDL field ${account}.${f.name} has a variable size`);
    offset += size;
  }
  throw new Error(`IDL type ${account} has no field ${field}`);
}

/** Size of a Bet account (dataSize filter). */
export const BET_SIZE = coder.accounts.size('Bet');
/** Size of a BettorState account. */
export const BETTOR_STATE_SIZE = coder.accounts.size('BettorState');
/** Offset of Bet.status (memcmp filter for open bets). */
export const BET_STATUS_OFFSET = fieldOffset('Bet', 'status');
/** Offset of Bet.bettor (memcmp filter for a bettor's bets). */
export const BET_BETTOR_OFFSET = fieldOffset('Bet', 'bettor');
/** Account discriminators, base58 (memcmp at 0). */
export const BET_DISCRIMINATOR = coder.accounts.memcmp('Bet').bytes as string;
export const BETTOR_STATE_DISCRIMINATOR = coder.accounts.memcmp('BettorState').bytes as string;
export const CONFIG_DISCRIMINATOR = coder.accounts.memcmp('Config').bytes as string;

const CONFIG = configPda()[0];
const PROGRAM_DATA = programDataPda()[0];

/** PDA derivation costs curve checks in JS; the same bets and bettors are asked for again and again. */
/** A derivation with its results kept; `prime` records a result learned elsewhere (an account the program owns at that address). */
type Memo<K, V> = ((key: K) => V) & { prime(key: K, value: V): void };

function memo<K, V>(derive: (key: K) => V, keyOf: (key: K) => string, limit = 50_000): Memo<K, V> {
  const cache = new Map<string, V>();
  const remember = (k: string, value: V) => {
    if (cache.size >= limit) cache.clear();
    cache.set(k, value);
  };
  const lookup = (key: K): V => {
    const k = keyOf(key);
    let value = cache.get(k);
    if (value === undefined) {
      value = derive(key);
      remember(k, value);
    }
    return value;
  };
  return Object.assign(lookup, { prime: (key: K, value: V) => remember(keyOf(key), value) });
}

/** Config PDA ["config"]. */
export function configAddress(): PublicKey {
  return CONFIG;
}

/**
 * Bet PDA ["bet", bettor, seq u64 LE]. Deriving one costs a curve check (~0.2 ms in JS); the chain
 * mirror primes it with the address of every bet account it reads, so settling thousands of bets
 * it adopted derives none.
 */
export const betAddress: Memo<BetRef, PublicKey> = memo(
  (r: BetRef) => betPda(new PublicKey(r.bettor), r.seq)[0],
  (r) => `${r.bettor}:${r.seq}`,
);

/** Bettor-state PDA ["bettor", pubkey]; primed by the mirror like `betAddress`. */
export const bettorAddress: Memo<PublicKey, PublicKey> = memo(
  (b: PublicKey) => bettorPda(b)[0],
  (b) => nameOf(b),
);

/** The associated token account of `owner` for `mint` (owner may be a PDA). */
export const tokenAccountOf: (mint: PublicKey, owner: PublicKey) => PublicKey = (() => {
  const derive = memo(
    ([mint, owner]: [PublicKey, PublicKey]) => getAssociatedTokenAddressSync(mint, owner, true),
    ([m, o]) => `${nameOf(m)}:${nameOf(o)}`,
  );
  return (mint: PublicKey, owner: PublicKey) => derive([mint, owner]);
})();

/** Name of a program error code, from the IDL ("Unknown" when not listed). */
export function errorName(code: number): string {
  return errorByCode(code)?.name ?? 'Unknown';
}

/** Message of a program error code, from the IDL. */
export function errorMessage(code: number): string {
  return errorByCode(code)?.msg ?? `program error ${code}`;
}

// ---- accounts ------------------------------------------------------------------------------

const bn = (n: bigint) => new BN(n.toString());
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

// ---- instructions --------------------------------------------------------------------------

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
        ? new PublicKey(a.address)
        : a.name === 'config'
          ? CONFIG
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

/** place_bet / place_bet_delegated: a new bet at ["bet", bettor, seq]. */
export function placeBetIx(a: PlaceBetAccounts, side: Side, amount: bigint, entryPrice: bigint): TransactionInstruction {
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
    { side: side === 'UP' ? 0 : 1, amount: bn(amount), entry_price: bn(entryPrice) },
  );
}

/** Accounts that name one bet and where its money goes. */
export interface BetAccounts {
  ref: BetRef;
  bettorToken: PublicKey;
  vault: PublicKey;
}

/** close_bet(exit_price): the relayer settles an expired bet. */
export function closeBetIx(a: BetAccounts & { relayer: PublicKey }, exitPrice: bigint): TransactionInstruction {
  const bettor = new PublicKey(a.ref.bettor);
  return instruction(
    'close_bet',
    { bet: betAddress(a.ref), bettor_state: bettorAddress(bettor), bettor_token: a.bettorToken, vault: a.vault, relayer: a.relayer },
    { exit_price: bn(exitPrice) },
  );
}

/** refund_expired: anyone returns the stake once expire_time + refund_after_seconds has passed. */
export function refundExpiredIx(a: BetAccounts): TransactionInstruction {
  const bettor = new PublicKey(a.ref.bettor);
  return instruction('refund_expired', { bet: betAddress(a.ref), bettor_state: bettorAddress(bettor), bettor_token: a.bettorToken, vault: a.vault });
}

/** reclaim_bet: the relayer closes a settled bet's account, its rent back to `payer`. */
export function reclaimBetIx(a: { ref: BetRef; payer: PublicKey; relayer: PublicKey }): TransactionInstruction {
  return instruction('reclaim_bet', { bet: betAddress(a.ref), bettor_state: bettorAddress(new PublicKey(a.ref.bettor)), payer: a.payer, relayer: a.relayer });
}

/** close_bettor: the relayer closes an idle bettor state (every bet of it reclaimed), its rent back to `payer`. */
export function closeBettorIx(a: { bettor: PublicKey; payer: PublicKey; relayer: PublicKey }): TransactionInstruction {
  return instruction('close_bettor', { bettor_state: bettorAddress(a.bettor), payer: a.payer, relayer: a.relayer });
}

/** set_paused(paused): admin only; stops new bets, settlement goes on. */
export function setPausedIx(admin: PublicKey, paused: boolean): TransactionInstruction {
  return instruction('set_paused', { admin }, { paused: paused ? 1 : 0 });
}

/** set_relayer(new_relayer): admin only. */
export function setRelayerIx(admin: PublicKey, newRelayer: PublicKey): TransactionInstruction {
  return instruction('set_relayer', { admin }, { new_relayer: newRelayer });
}

/** propose_admin(new_admin): the admin names its successor (the zero key cancels). */
export function proposeAdminIx(admin: PublicKey, newAdmin: PublicKey): TransactionInstruction {
  return instruction('propose_admin', { admin }, { new_admin: newAdmin });
}

/** accept_admin: the proposed admin takes over. */
export function acceptAdminIx(newAdmin: PublicKey): TransactionInstruction {
  return instruction('accept_admin', { new_admin: newAdmin });
}

/** withdraw(amount): admin only, at most the vault's surplus above the open liability. */
export function withdrawIx(a: { admin: PublicKey; vault: PublicKey; destination: PublicKey }, amount: bigint): TransactionInstruction {
  return instruction('withdraw', { ...a }, { amount: bn(amount) });
}
