/**
 * The updown program's interface as read from its IDL (docs/architecture.md#the-contract): the
 * Borsh coder, field offsets and account sizes for getProgramAccounts filters, account
 * discriminators, and the names and messages of program errors.
 */
import anchor from '@coral-xyz/anchor';
import { UPDOWN_IDL, errorByCode } from '../../../program/index.ts';

const { BorshCoder } = anchor;

/** The IDL's Borsh coder (instruction data, account sizes and discriminators). */
export const coder = new BorshCoder(UPDOWN_IDL);
type IdlStruct = { name: string; type: { kind: string; fields?: { name: string; type: unknown }[] } };

const FIELD_SIZES: Record<string, number> = { u8: 1, i8: 1, u16: 2, i16: 2, u32: 4, i32: 4, u64: 8, i64: 8, pubkey: 32, bool: 1 };

/** Byte offset of `field` in account `account` (8-byte discriminator included), from the IDL. */
function fieldOffset(account: string, field: string): number {
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
/** The Bet account's discriminator, base58 (memcmp at 0). */
export const BET_DISCRIMINATOR = coder.accounts.memcmp('Bet').bytes as string;

/** Name of a program error code, from the IDL ("Unknown" when not listed). */
export function errorName(code: number): string {
  return errorByCode(code)?.name ?? 'Unknown';
}

/** Message of a program error code, from the IDL. */
export function errorMessage(code: number): string {
  return errorByCode(code)?.msg ?? `program error ${code}`;
}
