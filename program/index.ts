/**
 * The updown program as the rest of the project sees it: its Anchor IDL, program id, built
 * .so, deploy key, PDA derivations (`pda.ts`) and custom errors (docs/architecture.md#the-contract).
 *
 * @example
 * const [bet] = betPda(bettor, state?.bet_count ?? 0n); // seq = the bettor state's bet_count
 * const err = errorByCode(6013); // { code: 6013, name: 'Paused', msg: 'Bet intake is paused' }
 * const event = eventByName('BetPlaced'); // { name: 'BetPlaced', discriminator: [...] }
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Idl } from '@coral-xyz/anchor';
import { Keypair, PublicKey } from '@solana/web3.js';
import idlJson from './idl/updown.json' with { type: 'json' };
import { BPF_LOADER_UPGRADEABLE_ID } from './loader.ts';
import { findProgramAddress } from './pda.ts';

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
  return findProgramAddress([Buffer.from('config')], PROGRAM_ID);
}

/** Price rules PDA: seeds ["price_rules"] (docs/decisions.md#signed-prices). */
export function priceRulesPda(): [PublicKey, number] {
  return findProgramAddress([Buffer.from('price_rules')], PROGRAM_ID);
}

/**
 * Bet PDA: seeds ["bet", bettor, seq as u64 little-endian], where seq is the bettor state's
 * bet_count when the bet is placed (0 when the bettor state does not exist yet). The global
 * bet id (config.next_bet_id) is assigned by the program and is not part of the address.
 */
export function betPda(bettor: PublicKey, seq: bigint): [PublicKey, number] {
  const le = Buffer.alloc(8);
  le.writeBigUInt64LE(seq);
  return findProgramAddress([Buffer.from('bet'), bettor.toBuffer(), le], PROGRAM_ID);
}

/** Bettor PDA (holds the bettor's open bet): seeds ["bettor", bettor]. */
export function bettorPda(bettor: PublicKey): [PublicKey, number] {
  return findProgramAddress([Buffer.from('bettor'), bettor.toBuffer()], PROGRAM_ID);
}

/** The upgradeable BPF loader (the program's owner; its ProgramData names the upgrade authority). */
export const UPGRADEABLE_LOADER_ID = BPF_LOADER_UPGRADEABLE_ID;

/** The program's ProgramData account: seeds [program id] under the upgradeable loader (initialize takes it). */
export function programDataPda(programId: PublicKey = PROGRAM_ID): [PublicKey, number] {
  return findProgramAddress([programId.toBuffer()], UPGRADEABLE_LOADER_ID);
}

/** Bet.status values. */
export const BET_STATUS = { open: 0, won: 1, lost: 2, refunded: 3 } as const;

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

/** One event of the program: its name and 8-byte discriminator sha256("event:<Name>")[..8]. */
export interface ProgramEventInfo {
  name: string;
  discriminator: number[];
}

/** Every event the program emits (through sol_log_data; decode with Anchor's EventParser or BorshCoder.events). */
export const EVENTS: readonly ProgramEventInfo[] = idlJson.events;

/** The event named `name`, or undefined when the program has no such event. */
export function eventByName(name: string): ProgramEventInfo | undefined {
  return EVENTS.find((e) => e.name === name);
}
