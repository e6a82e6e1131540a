/**
 * Account reads for the adapter: getAccountInfo with base64 data, validated and decoded.
 */
import * as v from 'valibot';
import type { PublicKey } from '@solana/web3.js';
import type { RpcClient } from './rpc-client.ts';

const AccountJson = v.object({
  data: v.tuple([v.string(), v.literal('base64')]),
  executable: v.boolean(),
  lamports: v.number(),
  owner: v.string(),
});
const Context = v.object({ slot: v.number() });
const AccountInfo = v.object({ context: Context, value: v.nullable(AccountJson) });

/** An account as the adapter uses it. */
export interface RawAccount {
  lamports: bigint;
  owner: string;
  data: Uint8Array;
}

const raw = (a: v.InferOutput<typeof AccountJson>): RawAccount => ({ lamports: BigInt(a.lamports), owner: a.owner, data: Buffer.from(a.data[0], 'base64') });

/** One account, or null when it does not exist. */
export async function fetchAccount(rpc: RpcClient, address: PublicKey): Promise<RawAccount | null> {
  const res = await rpc.call('getAccountInfo', [address.toBase58(), { encoding: 'base64', commitment: 'confirmed' }], AccountInfo);
  return res.value ? raw(res.value) : null;
}
