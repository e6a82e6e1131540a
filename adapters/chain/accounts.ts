/**
 * Account reads for the adapter: getAccountInfo / getMultipleAccounts / getProgramAccounts
 * with base64 data, validated and decoded.
 */
import * as v from 'valibot';
import { PublicKey } from '@solana/web3.js';
import { ChainUnavailable } from './port.ts';
import type { RpcClient } from './rpc-client.ts';

const AccountJson = v.object({
  data: v.tuple([v.string(), v.literal('base64')]),
  executable: v.boolean(),
  lamports: v.number(),
  owner: v.string(),
});
const Context = v.object({ slot: v.number() });
const AccountInfo = v.object({ context: Context, value: v.nullable(AccountJson) });
const Multiple = v.object({ context: Context, value: v.array(v.nullable(AccountJson)) });
const ProgramAccounts = v.array(v.object({ pubkey: v.string(), account: AccountJson }));

/** An account as the adapter uses it. */
export interface RawAccount {
  lamports: bigint;
  owner: string;
  data: Uint8Array;
}

/** A getProgramAccounts filter. */
export type AccountFilter = { dataSize: number } | { memcmp: { offset: number; bytes: string } };

const raw = (a: v.InferOutput<typeof AccountJson>): RawAccount => ({ lamports: BigInt(a.lamports), owner: a.owner, data: Buffer.from(a.data[0], 'base64') });

/** One account, or null when it does not exist. */
export async function fetchAccount(rpc: RpcClient, address: PublicKey): Promise<RawAccount | null> {
  const res = await rpc.call('getAccountInfo', [address.toBase58(), { encoding: 'base64', commitment: 'confirmed' }], AccountInfo);
  return res.value ? raw(res.value) : null;
}

/** Several accounts in one call, in order. */
export async function fetchAccounts(rpc: RpcClient, addresses: PublicKey[]): Promise<(RawAccount | null)[]> {
  const res = await rpc.call('getMultipleAccounts', [addresses.map((a) => a.toBase58()), { encoding: 'base64', commitment: 'confirmed' }], Multiple);
  if (res.value.length !== addresses.length) throw new ChainUnavailable('getMultipleAccounts answered the wrong number of accounts');
  return res.value.map((a) => (a ? raw(a) : null));
}

/** Accounts of `program` matching every filter. */
export async function fetchProgramAccounts(
  rpc: RpcClient,
  program: PublicKey,
  filters: AccountFilter[],
): Promise<{ address: PublicKey; account: RawAccount }[]> {
  const res = await rpc.call('getProgramAccounts', [program.toBase58(), { encoding: 'base64', commitment: 'confirmed', filters }], ProgramAccounts);
  return res.map((r) => ({ address: new PublicKey(r.pubkey), account: raw(r.account) }));
}

/** Amount held by an SPL token account (u64 at offset 64), 0 when missing. */
export function tokenAmount(acc: RawAccount | null): bigint {
  if (!acc || acc.data.length < 72) return 0n;
  return Buffer.from(acc.data).readBigUInt64LE(64);
}
