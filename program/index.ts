/**
 * The updown program as the rest of the project sees it: its Anchor IDL, program id, built
 * .so, deploy key, PDA derivations and custom errors (design: "The on-chain contract").
 *
 * @example
 * const [bet] = betPda(7n);
 * const err = errorByCode(6013); // { code: 6013, name: 'Paused', msg: 'Bet intake is paused' }
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Idl } from '@coral-xyz/anchor';
import { Keypair, PublicKey } from '@solana/web3.js';
import idlJson from './idl/updown.json' with { type: 'json' };

const here = dirname(fileURLToPath(import.meta.url));

/** The program's Anchor IDL (0.30+ format; the C program implements it byte for byte). */
export const UPDOWN_IDL = idlJson as unknown as Idl;

/** The program id (the public key of program/keys/program-keypair.json). */
export const PROGRAM_ID = new PublicKey(idlJson.address);

/** Absolute path of the built program (SBPF v0 shared object). */
export const PROGRAM_SO_PATH = join(here, 'updown.so');

/** The program's deploy keypair (its address is PROGRAM_ID). */
export function programKeypair(): Keypair {
  const secret: unknown = JSON.parse(readFileSync(join(here, 'keys', 'program-keypair.json'), 'utf8'));
  if (!Array.isArray(secret) || secret.length !== 64) throw new Error('program-keypair.json must hold 64 numbers');
  return Keypair.fromSecretKey(Uint8Array.from(secret as number[]));
}

/** Config PDA: seeds ["config"]. */
export function configPda(): [PublicKey, number] {
  return PublicKey.findProgramAddressSync([Buffer.from('config')], PROGRAM_ID);
}

/** Bet PDA: seeds ["bet", id as u64 little-endian]. */
export function betPda(id: bigint): [PublicKey, number] {
  const le = Buffer.alloc(8);
  le.writeBigUInt64LE(id);
  return PublicKey.findProgramAddressSync([Buffer.from('bet'), le], PROGRAM_ID);
}

/** Bettor PDA (holds the bettor's open bet): seeds ["bettor", bettor]. */
export function bettorPda(bettor: PublicKey): [PublicKey, number] {
  return PublicKey.findProgramAddressSync([Buffer.from('bettor'), bettor.toBuffer()], PROGRAM_ID);
}

/** One custom error of the program (code 6000+). */
export interface ProgramErrorInfo {
  code: number;
  name: string;
  msg: string;
}

/** Every custom error of the program, from the IDL. */
export const ERRORS: readonly ProgramErrorInfo[] = idlJson.errors;

const byCode = new Map(ERRORS.map((e) => [e.code, e]));

/** The program error with this custom code, or undefined when the code is not the program's. */
export function errorByCode(code: number): ProgramErrorInfo | undefined {
  return byCode.get(code);
}
