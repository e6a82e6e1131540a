/**
 * The updown program's interface as read from its IDL (docs/architecture.md#the-contract): the
 * Borsh coder, field offsets and account sizes for getProgramAccounts filters, account
 * discriminators, and the names and messages of program errors.
 */
import anchor from '@coral-xyz/anchor';
import { UPDOWN_IDL, errorByCode } from '../../../program/index.ts';
import { structLayout } from '../account-layout.ts';

const { BorshCoder } = anchor;

/** The IDL's Borsh coder (instruction data, account sizes and discriminators). */
export const coder = new BorshCoder(UPDOWN_IDL);
/** Byte offset of `field` in account `account` (8-byte discriminator included), from the IDL's layout. */
function fieldOffset(account: string, field: string): number {
  const found = structLayout(UPDOWN_IDL, account).fields.find((f) => f.name === field);
  if (!found) throw new Error(`IDL type ${account} has no field ${field}`);
  return found.offset;
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
