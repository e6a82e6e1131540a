/**
 * The updown program as the gateway sees it: IDL, program id, PDAs, account decoding and
 * instruction encoding through anchor's `BorshCoder` (design: "The on-chain contract").
 * Field offsets used in getProgramAccounts filters are computed from the IDL layout.
 */
import anchor from '@coral-xyz/anchor';
import { PublicKey, SystemProgram, TransactionInstruction, type AccountMeta } from '@solana/web3.js';
import { TOKEN_PROGRAM_ID, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { PROGRAM_ID, UPDOWN_IDL, betPda, bettorPda, configPda, errorByCode } from '../../program/index.ts';
import type { BetAccount, BetStatus, ContractConfig, InitParams, Side } from './port.ts';

const { BorshCoder, BN } = anchor;

/** The program id (re-exported from the program module). */
export { PROGRAM_ID };

const coder = new BorshCoder(UPDOWN_IDL);
type IdlStruct = { name: string; type: { kind: string; fields?: { name: string; type: unknown }[] } };

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
/** Offset of Bet.status (memcmp filter for open bets). */
export const BET_STATUS_OFFSET = fieldOffset('Bet', 'status');
/** Offset of Bet.bettor (memcmp filter for a bettor's bets). */
export const BET_BETTOR_OFFSET = fieldOffset('Bet', 'bettor');
/** Bet account discriminator, base58 (memcmp at 0). */
export const BET_DISCRIMINATOR = coder.accounts.memcmp('Bet').bytes as string;

const CONFIG = configPda()[0];

/** PDA derivation costs curve checks in JS; the same bets and bettors are asked for again and again. */
function memo<K, V>(derive: (key: K) => V, keyOf: (key: K) => string, limit = 10_000): (key: K) => V {
  const cache = new Map<string, V>();
  return (key) => {
    const k = keyOf(key);
    let value = cache.get(k);
    if (value === undefined) {
      if (cache.size >= limit) cache.clear();
      value = derive(key);
      cache.set(k, value);
    }
    return value;
  };
}

/** Config PDA ["config"]. */
export function configAddress(): PublicKey {
  return CONFIG;
}

/** Bet PDA ["bet", id u64 LE]. */
export const betAddress: (id: bigint) => PublicKey = memo((id: bigint) => betPda(id)[0], String);

/** Bettor-state PDA ["bettor", pubkey]. */
export const bettorAddress: (bettor: PublicKey) => PublicKey = memo((b: PublicKey) => bettorPda(b)[0], (b) => b.toBase58());

/** The associated token account of `owner` for `mint` (owner may be a PDA). */
export const tokenAccountOf: (mint: PublicKey, owner: PublicKey) => PublicKey = (() => {
  const derive = memo(([mint, owner]: [PublicKey, PublicKey]) => getAssociatedTokenAddressSync(mint, owner, true), ([m, o]) => `${m.toBase58()}:${o.toBase58()}`);
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

type Num = { toString(): string };
interface RawConfig { admin: PublicKey; relayer: PublicKey; mint: PublicKey; vault: PublicKey; counter: Num; next_bet_id: Num; min_amount: Num; max_amount: Num; multiplier_bps: Num; expiry_seconds: Num; paused: number }
interface RawBet { id: Num; bettor: PublicKey; side: number; amount: Num; entry_price: Num; exit_price: Num; bet_time: Num; expire_time: Num; status: number }
interface RawBettorState { open_bet_id: Num; has_open_bet: number }
const big = (n: Num): bigint => BigInt(n.toString());
const bn = (n: bigint) => new BN(n.toString());

/** Decodes the Config account. */
export function decodeConfig(data: Uint8Array): ContractConfig {
  const c = coder.accounts.decode<RawConfig>('Config', Buffer.from(data));
  return {
    admin: c.admin.toBase58(),
    relayer: c.relayer.toBase58(),
    mint: c.mint.toBase58(),
    vault: c.vault.toBase58(),
    counter: big(c.counter),
    nextBetId: big(c.next_bet_id),
    minAmount: big(c.min_amount),
    maxAmount: big(c.max_amount),
    multiplierBps: big(c.multiplier_bps),
    expirySeconds: big(c.expiry_seconds),
    paused: c.paused !== 0,
  };
}

/** Decodes a Bet account. */
export function decodeBet(data: Uint8Array): BetAccount {
  const b = coder.accounts.decode<RawBet>('Bet', Buffer.from(data));
  return {
    id: big(b.id),
    bettor: b.bettor.toBase58(),
    side: b.side === 0 ? 'UP' : 'DOWN',
    amount: big(b.amount),
    entryPrice: big(b.entry_price),
    exitPrice: big(b.exit_price),
    betTime: big(b.bet_time),
    expireTime: big(b.expire_time),
    status: b.status as BetStatus,
  };
}

/** Decodes a BettorState account: the open bet id, or null. */
export function decodeOpenBetId(data: Uint8Array): bigint | null {
  const s = coder.accounts.decode<RawBettorState>('BettorState', Buffer.from(data));
  return s.has_open_bet !== 0 ? big(s.open_bet_id) : null;
}

const meta = (pubkey: PublicKey, isWritable: boolean, isSigner = false): AccountMeta => ({ pubkey, isWritable, isSigner });
const ix = (keys: AccountMeta[], name: string, args: object) => new TransactionInstruction({ programId: PROGRAM_ID, keys, data: coder.instruction.encode(name, args) });

/** initialize(min, max, multiplier_bps, expiry_seconds): admin signs and pays. */
export function initializeIx(a: { admin: PublicKey; relayer: PublicKey; mint: PublicKey; vault: PublicKey }, p: InitParams): TransactionInstruction {
  return ix(
    [meta(configAddress(), true), meta(a.admin, true, true), meta(a.relayer, false), meta(a.mint, false), meta(a.vault, false), meta(TOKEN_PROGRAM_ID, false), meta(SystemProgram.programId, false)],
    'initialize',
    { min_amount: bn(p.minAmount), max_amount: bn(p.maxAmount), multiplier_bps: bn(p.multiplierBps), expiry_seconds: bn(p.expirySeconds) },
  );
}

/** Accounts of a place_bet / place_bet_delegated instruction. */
export interface PlaceBetAccounts {
  betId: bigint;
  bettor: PublicKey;
  bettorToken: PublicKey;
  vault: PublicKey;
  relayer: PublicKey;
  /** true: the relayer moves the stake as SPL delegate (place_bet_delegated) */
  delegated: boolean;
}

/** place_bet / place_bet_delegated. */
export function placeBetIx(a: PlaceBetAccounts, side: Side, amount: bigint, entryPrice: bigint): TransactionInstruction {
  return ix(
    [
      meta(configAddress(), true),
      meta(betAddress(a.betId), true),
      meta(bettorAddress(a.bettor), true),
      meta(a.bettor, false, !a.delegated),
      meta(a.bettorToken, true),
      meta(a.vault, true),
      meta(a.relayer, true, true),
      meta(TOKEN_PROGRAM_ID, false),
      meta(SystemProgram.programId, false),
    ],
    a.delegated ? 'place_bet_delegated' : 'place_bet',
    { bet_id: bn(a.betId), side: side === 'UP' ? 0 : 1, amount: bn(amount), entry_price: bn(entryPrice) },
  );
}

/** close_bet(exit_price): the relayer settles an expired bet. */
export function closeBetIx(a: { betId: bigint; bettor: PublicKey; bettorToken: PublicKey; vault: PublicKey; relayer: PublicKey }, exitPrice: bigint): TransactionInstruction {
  return ix(
    [meta(configAddress(), true), meta(betAddress(a.betId), true), meta(bettorAddress(a.bettor), true), meta(a.bettorToken, true), meta(a.vault, true), meta(a.relayer, false, true), meta(TOKEN_PROGRAM_ID, false)],
    'close_bet',
    { exit_price: bn(exitPrice) },
  );
}

/** set_paused(paused): admin only. */
export function setPausedIx(admin: PublicKey, paused: boolean): TransactionInstruction {
  return ix([meta(configAddress(), true), meta(admin, false, true)], 'set_paused', { paused: paused ? 1 : 0 });
}
