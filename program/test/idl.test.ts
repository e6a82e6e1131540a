/**
 * The IDL is what the C program implements: discriminators follow Anchor's sha256 rule, the
 * error table is contiguous from 6000 and the C sources carry the same names, messages and
 * discriminator bytes, and Borsh sizes match the account sizes the program allocates.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BorshCoder } from '@coral-xyz/anchor';
import { Keypair } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { ERRORS, PROGRAM_ID, UPDOWN_IDL, errorByCode, programKeypair } from '../index.ts';

const src = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');
const cSource = (file: string): string => readFileSync(join(src, file), 'utf8');
const sha8 = (text: string): number[] => [...createHash('sha256').update(text).digest().subarray(0, 8)];
const cBytes = (bytes: number[]): string => `{${bytes.join(', ')}}`;

describe('IDL', () => {
  it('instruction discriminators are sha256("global:<name>")[0..8] and match entrypoint.c', () => {
    const entry = cSource('entrypoint.c');
    for (const ix of UPDOWN_IDL.instructions) {
      expect(ix.discriminator, ix.name).toEqual(sha8(`global:${ix.name}`));
      expect(entry, ix.name).toContain(cBytes(ix.discriminator));
    }
  });

  it('account discriminators are sha256("account:<Name>")[0..8] and match state.h', () => {
    const state = cSource('state.h');
    for (const account of UPDOWN_IDL.accounts ?? []) {
      expect(account.discriminator, account.name).toEqual(sha8(`account:${account.name}`));
      expect(state, account.name).toContain(cBytes(account.discriminator));
    }
  });

  it('Borsh sizes are the sizes the program allocates (Config 186, Bet 91 with status at 89, BettorState 58)', () => {
    const coder = new BorshCoder(UPDOWN_IDL);
    expect(coder.accounts.size('Config')).toBe(186);
    expect(coder.accounts.size('Bet')).toBe(91);
    expect(coder.accounts.size('BettorState')).toBe(58);
    const types = UPDOWN_IDL.types ?? [];
    const bet = types.find((t) => t.name === 'Bet');
    const widths: Record<string, number> = { u8: 1, u64: 8, i64: 8, pubkey: 32 };
    let offset = 8;
    if (bet?.type.kind !== 'struct' || !Array.isArray(bet.type.fields)) throw new Error('Bet is not a struct');
    for (const field of bet.type.fields as Array<{ name: string; type: string }>) {
      if (field.name === 'status') break;
      offset += widths[field.type] ?? NaN;
    }
    expect(offset).toBe(89);
  });

  it('errors run 6000.. without gaps, and errors.c logs the same names and messages in order', () => {
    expect(ERRORS.map((e) => e.code)).toEqual(ERRORS.map((_, i) => 6000 + i));
    const table = [...cSource('errors.c').matchAll(/\{"([A-Za-z]+)", "([^"]+)"\}/g)].map((m) => ({ name: m[1], msg: m[2] }));
    expect(table).toEqual(ERRORS.map((e) => ({ name: e.name, msg: e.msg })));
    const header = cSource('errors.h');
    expect(header).toContain(`#define ERR_LAST ${ERRORS.at(-1)!.code}`);
    expect(errorByCode(6013)?.name).toBe('Paused');
    expect(errorByCode(42)).toBeUndefined();
  });

  it('address is the public key of the committed program keypair', () => {
    expect(programKeypair().publicKey.equals(PROGRAM_ID)).toBe(true);
    expect(PROGRAM_ID.equals(Keypair.generate().publicKey)).toBe(false);
  });
});
