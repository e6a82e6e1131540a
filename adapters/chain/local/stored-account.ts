/**
 * How the local chain writes an account image into its files (journal records and snapshot
 * lines alike): a compact JSON tuple — address, lamports as a decimal string (u64 does not fit a
 * JSON number) or null for a deleted account, owner, executable as 0/1, data in base64.
 *
 * @example
 *   const line = JSON.stringify(images.map(storedAccount));
 *   const back = (JSON.parse(line) as StoredAccount[]).map(accountFromStored);
 */
import * as v from 'valibot';

/** One account as a transaction left it; `lamports` null means the account was deleted. */
export interface AccountImage {
  address: string;
  lamports: bigint | null;
  owner: string;
  executable: boolean;
  data: Uint8Array;
}

/** The tuple an account image is stored as. */
export type StoredAccount = [string, string | null, string, 0 | 1, string];

/** Checks a stored tuple read back from disk. */
export const StoredAccountSchema = v.tuple([v.string(), v.nullable(v.pipe(v.string(), v.digits())), v.string(), v.picklist([0, 1]), v.string()]);

/** The stored form of an image. */
export function storedAccount(a: AccountImage): StoredAccount {
  return [
    a.address,
    a.lamports === null ? null : a.lamports.toString(),
    a.owner,
    a.executable ? 1 : 0,
    Buffer.from(a.data.buffer, a.data.byteOffset, a.data.length).toString('base64'),
  ];
}

/** The image a stored tuple describes. */
export function accountFromStored([address, lamports, owner, executable, data]: StoredAccount): AccountImage {
  return {
    address,
    lamports: lamports === null ? null : BigInt(lamports),
    owner,
    executable: executable === 1,
    data: new Uint8Array(Buffer.from(data, 'base64')),
  };
}
