/**
 * What an attacker's client could send, and accounts an attacker could not make (written
 * straight into LiteSVM): patched account metas, forged copies of program accounts, token
 * accounts at arbitrary addresses.
 */
import { AccountLayout, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { Keypair, PublicKey, type TransactionInstruction } from '@solana/web3.js';
import { address, lamports } from '@solana/kit';
import { UPDOWN_IDL } from '../index.ts';
import type { ChainCore } from './harness/chain-core.ts';

/** Changes one account meta of an instruction built from the IDL (by account name): what an attacker's client could send. */
export function patchAccount(
  ix: TransactionInstruction,
  instruction: string,
  account: string,
  patch: { pubkey?: PublicKey; isSigner?: boolean; isWritable?: boolean },
): TransactionInstruction {
  const entry = UPDOWN_IDL.instructions.find((i) => i.name === instruction);
  const index = entry?.accounts.findIndex((a) => a.name === account) ?? -1;
  const meta = ix.keys[index];
  if (!meta) throw new Error(`no account ${account} in ${instruction}`);
  ix.keys[index] = { ...meta, ...patch };
  return ix;
}

/** Writes an account directly (tests only: forged or pre-funded accounts an attacker could not make). */
export function writeAccount(chain: ChainCore, key: PublicKey, account: { owner: PublicKey; data: Uint8Array; lamports: bigint }): void {
  chain.svm.setAccount({
    address: address(key.toBase58()),
    data: account.data,
    executable: false,
    lamports: lamports(account.lamports),
    programAddress: address(account.owner.toBase58()),
    space: BigInt(account.data.length),
  });
}

/** Copies `from` (owner, data, lamports) to a fresh address and returns it. */
export function forgeCopy(chain: ChainCore, from: PublicKey, mutate: (data: Uint8Array) => void = () => {}): PublicKey {
  const source = chain.readAccount(from);
  if (!source) throw new Error(`cannot copy missing account ${from.toBase58()}`);
  const key = Keypair.generate().publicKey;
  const data = Uint8Array.from(source.data);
  mutate(data);
  writeAccount(chain, key, { owner: new PublicKey(source.owner), data, lamports: source.lamports });
  return key;
}

/** A token account of `mint` owned by `owner` at a fresh address (not an ATA). */
export function tokenAccountAt(chain: ChainCore, owner: PublicKey, mint: PublicKey, amount = 0n): PublicKey {
  const key = Keypair.generate().publicKey;
  const data = Buffer.alloc(AccountLayout.span);
  AccountLayout.encode(
    {
      mint,
      owner,
      amount,
      delegateOption: 0,
      delegate: PublicKey.default,
      state: 1,
      isNativeOption: 0,
      isNative: 0n,
      delegatedAmount: 0n,
      closeAuthorityOption: 0,
      closeAuthority: PublicKey.default,
    },
    data,
  );
  writeAccount(chain, key, { owner: TOKEN_PROGRAM_ID, data, lamports: chain.svm.minimumBalanceForRentExemption(BigInt(data.length)) });
  return key;
}
