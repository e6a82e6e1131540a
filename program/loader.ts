/**
 * Deploying the program through the upgradeable BPF loader (loader v3), as `solana program
 * deploy` does: create and fill a buffer, then DeployWithMaxDataLen. Produces the transactions
 * (instructions + signers); the caller adds a blockhash and sends them in order.
 *
 * @example
 * for (const step of upgradeableDeploySteps({ payer, program: programKeypair(), buffer: Keypair.generate(), elf, rentExempt })) send(step);
 * send({ instructions: [setUpgradeAuthorityInstruction(programId, payer.publicKey, null)], signers: [payer] }); // immutable
 */
import { type Keypair, PublicKey, SYSVAR_CLOCK_PUBKEY, SYSVAR_RENT_PUBKEY, SystemProgram, TransactionInstruction } from '@solana/web3.js';

/** The upgradeable BPF loader's program id. */
export const BPF_LOADER_UPGRADEABLE_ID = new PublicKey('BPFLoaderUpgradeab1e11111111111111111111111');

/** Sizes of the loader's account headers (UpgradeableLoaderState, bincode). */
const BUFFER_HEADER = 37;
const PROGRAM_ACCOUNT_SIZE = 36;
/** ELF bytes per Write instruction: keeps each transaction under the 1232-byte packet limit. */
const WRITE_CHUNK = 900;

/** One transaction of the deployment: its instructions and who signs (first pays). */
export interface DeployStep {
  instructions: TransactionInstruction[];
  signers: Keypair[];
}

/** Sizes of the accounts a deployment of `elfLength` bytes creates (buffer, program), for their rent-exempt minimums. */
export function deployAccountSizes(elfLength: number): number[] {
  return [BUFFER_HEADER + elfLength, PROGRAM_ACCOUNT_SIZE];
}

/** The program's ProgramData account (holds the ELF and the upgrade authority). */
export function programDataAddress(programId: PublicKey): PublicKey {
  return PublicKey.findProgramAddressSync([programId.toBuffer()], BPF_LOADER_UPGRADEABLE_ID)[0];
}

function loaderInstruction(keys: TransactionInstruction['keys'], data: Buffer): TransactionInstruction {
  return new TransactionInstruction({ programId: BPF_LOADER_UPGRADEABLE_ID, keys, data });
}

function u32(value: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(value);
  return b;
}

function u64(value: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(value);
  return b;
}

/**
 * The transactions that deploy `elf` at `program`'s address with `payer` as upgrade authority.
 * `rentExempt(bytes)` gives the rent-exempt minimum (from the cluster). The program can be
 * invoked from the slot after the deploy transaction.
 */
export function upgradeableDeploySteps(options: {
  payer: Keypair;
  program: Keypair;
  buffer: Keypair;
  elf: Uint8Array;
  rentExempt: (bytes: number) => bigint;
  maxDataLen?: number;
}): DeployStep[] {
  const { payer, program, buffer, elf } = options;
  const bufferSize = BUFFER_HEADER + elf.length;
  const steps: DeployStep[] = [
    {
      instructions: [
        SystemProgram.createAccount({
          fromPubkey: payer.publicKey,
          newAccountPubkey: buffer.publicKey,
          lamports: Number(options.rentExempt(bufferSize)),
          space: bufferSize,
          programId: BPF_LOADER_UPGRADEABLE_ID,
        }),
        loaderInstruction(
          [
            { pubkey: buffer.publicKey, isSigner: false, isWritable: true },
            { pubkey: payer.publicKey, isSigner: false, isWritable: false },
          ],
          u32(0),
        ),
      ],
      signers: [payer, buffer],
    },
  ];
  for (let offset = 0; offset < elf.length; offset += WRITE_CHUNK) {
    const chunk = elf.subarray(offset, offset + WRITE_CHUNK);
    steps.push({
      instructions: [
        loaderInstruction(
          [
            { pubkey: buffer.publicKey, isSigner: false, isWritable: true },
            { pubkey: payer.publicKey, isSigner: true, isWritable: false },
          ],
          Buffer.concat([u32(1), u32(offset), u64(BigInt(chunk.length)), Buffer.from(chunk)]),
        ),
      ],
      signers: [payer],
    });
  }
  const maxDataLen = options.maxDataLen ?? elf.length * 2;
  steps.push({
    instructions: [
      SystemProgram.createAccount({
        fromPubkey: payer.publicKey,
        newAccountPubkey: program.publicKey,
        lamports: Number(options.rentExempt(PROGRAM_ACCOUNT_SIZE)),
        space: PROGRAM_ACCOUNT_SIZE,
        programId: BPF_LOADER_UPGRADEABLE_ID,
      }),
      loaderInstruction(
        [
          { pubkey: payer.publicKey, isSigner: true, isWritable: true },
          { pubkey: programDataAddress(program.publicKey), isSigner: false, isWritable: true },
          { pubkey: program.publicKey, isSigner: false, isWritable: true },
          { pubkey: buffer.publicKey, isSigner: false, isWritable: true },
          { pubkey: SYSVAR_RENT_PUBKEY, isSigner: false, isWritable: false },
          { pubkey: SYSVAR_CLOCK_PUBKEY, isSigner: false, isWritable: false },
          { pubkey: SystemProgram.programId, isSigner: false, isWritable: false },
          { pubkey: payer.publicKey, isSigner: true, isWritable: false },
        ],
        Buffer.concat([u32(2), u64(BigInt(maxDataLen))]),
      ),
    ],
    signers: [payer, program],
  });
  return steps;
}

/**
 * The loader's SetAuthority (4) on the program's ProgramData, as `solana program
 * set-upgrade-authority` sends it: `current` signs and hands the upgrade authority to `next`, or
 * makes the program immutable when `next` is null.
 */
export function setUpgradeAuthorityInstruction(programId: PublicKey, current: PublicKey, next: PublicKey | null): TransactionInstruction {
  const keys: TransactionInstruction['keys'] = [
    { pubkey: programDataAddress(programId), isSigner: false, isWritable: true },
    { pubkey: current, isSigner: true, isWritable: false },
  ];
  if (next) keys.push({ pubkey: next, isSigner: false, isWritable: false });
  return loaderInstruction(keys, u32(4));
}
