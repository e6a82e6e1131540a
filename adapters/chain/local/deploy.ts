/**
 * Deploys a program through the upgradeable BPF loader with ordinary transactions —
 * InitializeBuffer, Write (in chunks), DeployWithMaxDataLen — so the same ELF checks as a
 * cluster deployment run (design: "On a fresh data dir it deploys the contract").
 */
import { Keypair, PublicKey, SYSVAR_CLOCK_PUBKEY, SYSVAR_RENT_PUBKEY, SystemProgram, TransactionInstruction } from '@solana/web3.js';
import type { TxSender } from '../tx-sender.ts';

/** BPFLoaderUpgradeab1e11111111111111111111111 */
export const UPGRADEABLE_LOADER = new PublicKey('BPFLoaderUpgradeab1e11111111111111111111111');
/** UpgradeableLoaderState::size_of_buffer(0) / size_of_program() */
const BUFFER_HEADER = 37;
const PROGRAM_ACCOUNT_SIZE = 36;
/** bytes of ELF per Write transaction (fits the 1232-byte packet with one signature) */
const CHUNK = 900;

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};
const u64 = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b;
};

/** Deploys `elf` at `program`'s address, upgrade authority and payer `authority`. */
export async function deployUpgradeable(
  sender: TxSender,
  rentExempt: (size: number) => Promise<number>,
  authority: Keypair,
  program: Keypair,
  elf: Uint8Array,
): Promise<void> {
  const buffer = Keypair.generate();
  const bufferSize = BUFFER_HEADER + elf.length;
  const payer = authority.publicKey;
  await sender.sendAndConfirm(
    'create program buffer',
    [
      SystemProgram.createAccount({ fromPubkey: payer, newAccountPubkey: buffer.publicKey, lamports: await rentExempt(bufferSize), space: bufferSize, programId: UPGRADEABLE_LOADER }),
      new TransactionInstruction({ programId: UPGRADEABLE_LOADER, keys: [{ pubkey: buffer.publicKey, isSigner: false, isWritable: true }, { pubkey: payer, isSigner: false, isWritable: false }], data: u32(0) }),
    ],
    authority,
    [buffer],
  );
  const writes: Promise<string>[] = [];
  for (let offset = 0; offset < elf.length; offset += CHUNK) {
    const bytes = elf.subarray(offset, offset + CHUNK);
    const data = Buffer.concat([u32(1), u32(offset), u64(bytes.length), Buffer.from(bytes)]);
    writes.push(
      sender.sendAndConfirm(
        `write program bytes at ${offset}`,
        [new TransactionInstruction({ programId: UPGRADEABLE_LOADER, keys: [{ pubkey: buffer.publicKey, isSigner: false, isWritable: true }, { pubkey: payer, isSigner: true, isWritable: false }], data })],
        authority,
      ),
    );
  }
  await Promise.all(writes);
  const [programData] = PublicKey.findProgramAddressSync([program.publicKey.toBuffer()], UPGRADEABLE_LOADER);
  await sender.sendAndConfirm(
    'deploy program',
    [
      SystemProgram.createAccount({ fromPubkey: payer, newAccountPubkey: program.publicKey, lamports: await rentExempt(PROGRAM_ACCOUNT_SIZE), space: PROGRAM_ACCOUNT_SIZE, programId: UPGRADEABLE_LOADER }),
      new TransactionInstruction({
        programId: UPGRADEABLE_LOADER,
        keys: [
          { pubkey: payer, isSigner: true, isWritable: true },
          { pubkey: programData, isSigner: false, isWritable: true },
          { pubkey: program.publicKey, isSigner: false, isWritable: true },
          { pubkey: buffer.publicKey, isSigner: false, isWritable: true },
          { pubkey: SYSVAR_RENT_PUBKEY, isSigner: false, isWritable: false },
          { pubkey: SYSVAR_CLOCK_PUBKEY, isSigner: false, isWritable: false },
          { pubkey: SystemProgram.programId, isSigner: false, isWritable: false },
          { pubkey: payer, isSigner: true, isWritable: false },
        ],
        data: Buffer.concat([u32(2), u64(elf.length * 2)]),
      }),
    ],
    authority,
    [program],
  );
}
