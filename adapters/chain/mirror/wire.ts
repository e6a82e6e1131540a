/**
 * The shapes of what the chain mirror reads and is notified of (docs/architecture.md#the-chain-mirror):
 * base64 accounts with the slot they are known at, and how a token account's amount is read.
 */
import * as v from 'valibot';

export const AccountJson = v.object({ data: v.tuple([v.string(), v.literal('base64')]), lamports: v.number(), owner: v.string() });
const Keyed = v.object({ pubkey: v.string(), account: AccountJson });
const WithSlot = <T extends v.GenericSchema>(value: T) => v.object({ context: v.object({ slot: v.number() }), value });
export const ProgramAccounts = WithSlot(v.array(Keyed));
export const ProgramNotification = WithSlot(Keyed);
export const AccountNotification = WithSlot(AccountJson);
export const Multiple = WithSlot(v.array(v.nullable(AccountJson)));

export type RawAccount = v.InferOutput<typeof AccountJson>;
/** A value with the slot it is known at. */
export interface Known<T> {
  slot: number;
  value: T;
}

export const TOKEN_ACCOUNT_SIZE = 165;
export const tokenAmountOf = (data: Uint8Array): bigint =>
  data.length >= 72 ? Buffer.from(data.buffer, data.byteOffset, data.length).readBigUInt64LE(64) : 0n;
export const bytesOf = (a: RawAccount) => Buffer.from(a.data[0], 'base64');
