/**
 * The IDL is what the C program implements: discriminators follow Anchor's sha256 rule, the
 * error table is contiguous from 6000 and the C sources carry the same names, messages and
 * discriminator bytes, and every account and event type is field for field the packed C struct
 * the program writes.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BN, BorshCoder, Program, type Idl } from '@coral-xyz/anchor';
import { Connection, Keypair, type PublicKey, SystemProgram } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { BET_STATUS, ERRORS, PROGRAM_ID, UPDOWN_IDL, bettorPda, configPda, errorByCode, programDataPda, programKeypair } from '../index.ts';

const src = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');
const cSource = (file: string): string => readFileSync(join(src, file), 'utf8');
const sha8 = (text: string): number[] => [...createHash('sha256').update(text).digest().subarray(0, 8)];
const cBytes = (bytes: number[]): string => `{${bytes.join(', ')}}`;
const WIDTHS: Record<string, number> = { u8: 1, u64: 8, i64: 8, pubkey: 32 };
const C_TYPES: Record<string, string> = { u8: 'u8', u64: 'u64', i64: 'i64', SolPubkey: 'pubkey' };

/** The fields of IDL type `name` (name and primitive type). */
function idlFields(name: string): Array<{ name: string; type: string }> {
  const type = (UPDOWN_IDL.types ?? []).find((t) => t.name === name);
  if (type?.type.kind !== 'struct' || !Array.isArray(type.type.fields)) throw new Error(`${name} is not a struct`);
  return (type.type.fields as Array<{ name: string; type: string }>).map((f) => ({ name: f.name, type: f.type }));
}

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

  it('Borsh sizes are the sizes the program allocates (Config 234, Bet 131 with status at 129, BettorState 98)', () => {
    const coder = new BorshCoder(UPDOWN_IDL);
    expect(coder.accounts.size('Config')).toBe(234);
    expect(coder.accounts.size('Bet')).toBe(131);
    expect(coder.accounts.size('BettorState')).toBe(98);
    const state = cSource('state.h');
    for (const name of ['Config', 'Bet', 'BettorState']) expect(state).toContain(`_Static_assert(sizeof(${name}) == ${coder.accounts.size(name)}`);
    let offset = 8;
    for (const field of idlFields('Bet')) {
      if (field.name === 'status') break;
      offset += WIDTHS[field.type] ?? NaN;
    }
    expect(offset).toBe(129);
    expect(state).toContain('_Static_assert(__builtin_offsetof(Bet, status) == 129');
  });

  it('every account and event type is, field for field, the packed C struct of the same name', () => {
    const sources = cSource('state.h') + cSource('events.c');
    // PriceRules holds an array of structs: checked on its own below
    const names = [...(UPDOWN_IDL.accounts ?? []), ...(UPDOWN_IDL.events ?? [])].map((t) => t.name).filter((n) => n !== 'PriceRules');
    expect(names).toHaveLength(3 + 11);
    for (const name of names) {
      const struct = new RegExp(`typedef struct __attribute__\\(\\(packed\\)\\) \\{([^}]*)\\} ${name};`).exec(sources);
      if (!struct) throw new Error(`no packed C struct ${name}`);
      const fields = [...struct[1]!.matchAll(/^\s*(u8|u64|i64|SolPubkey) (\w+)(\[8\])?;/gm)].map((m) => ({
        name: m[2],
        type: m[3] ? 'discriminator' : C_TYPES[m[1]!],
      }));
      expect(fields, name).toEqual([{ name: 'discriminator', type: 'discriminator' }, ...idlFields(name)]);
      const size = idlFields(name).reduce((sum, f) => sum + (WIDTHS[f.type] ?? NaN), 8);
      expect(sources, name).toContain(`_Static_assert(sizeof(${name}) == ${size}`);
    }
  });

  it('PriceRules is the packed C struct: its fields in order, then an array of 4 PriceSigner (211 bytes)', () => {
    const struct = /typedef struct __attribute__\(\(packed\)\) \{([^}]*)\} PriceRules;/.exec(cSource('state.h'));
    const fields = [...struct![1]!.matchAll(/^\s*(\w+) (\w+)(\[\w+\])?;/gm)].map((m) => m[2]);
    expect(fields).toEqual(['discriminator', ...idlFields('PriceRules').map((f) => f.name)]);
    const signer = /typedef struct __attribute__\(\(packed\)\) \{([^}]*)\} PriceSigner;/.exec(cSource('state.h'));
    expect([...signer![1]!.matchAll(/^\s*(\w+) (\w+);/gm)].map((m) => ({ name: m[2], type: C_TYPES[m[1]!] }))).toEqual(idlFields('PriceSigner'));
    expect(cSource('state.h')).toContain('#define MAX_PRICE_SIGNERS 4');
    expect(cSource('state.h')).toContain('_Static_assert(sizeof(PriceRules) == 211');
  });

  it('event discriminators are sha256("event:<Name>")[0..8] and match events.h', () => {
    const events = cSource('events.h');
    for (const event of UPDOWN_IDL.events ?? []) {
      expect(event.discriminator, event.name).toEqual(sha8(`event:${event.name}`));
      expect(events, event.name).toContain(cBytes(event.discriminator));
    }
  });

  it('every instruction, instruction account and type has docs; refund_expired needs no signer', () => {
    for (const ix of UPDOWN_IDL.instructions) {
      expect(ix.docs?.length, ix.name).toBeGreaterThan(0);
      for (const account of ix.accounts) expect((account as { docs?: string[] }).docs?.length, `${ix.name}.${account.name}`).toBeGreaterThan(0);
    }
    for (const type of UPDOWN_IDL.types ?? []) expect(type.docs?.length, type.name).toBeGreaterThan(0);
    const names = UPDOWN_IDL.instructions.map((ix) => ix.name).sort();
    expect(names).toEqual(
      [
        'accept_admin',
        'add_price_signer',
        'remove_price_signer',
        'set_price_rules',
        'close_bet',
        'close_bettor',
        'initialize',
        'place_bet',
        'place_bet_delegated',
        'propose_admin',
        'reclaim_bet',
        'refund_expired',
        'set_paused',
        'set_relayer',
        'withdraw',
      ].sort(),
    );
    const refund = UPDOWN_IDL.instructions.find((ix) => ix.name === 'refund_expired')!;
    expect(refund.accounts.filter((a) => (a as { signer?: boolean }).signer)).toEqual([]);
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

  it("the IDL's fixed addresses and PDA seeds let Anchor fill config, program, program_data and bettor_state itself", async () => {
    type Builder = { accountsPartial(a: Record<string, PublicKey>): { instruction(): Promise<{ keys: Array<{ pubkey: PublicKey }> }> } };
    const methods = new Program(UPDOWN_IDL as Idl, { connection: new Connection('http://127.0.0.1:1') }).methods as unknown as Record<
      string,
      (...args: unknown[]) => Builder
    >;
    const key = () => Keypair.generate().publicKey;
    const init = await methods.initialize!(new BN(1), new BN(2), new BN(10_000), new BN(15), new BN(60))
      .accountsPartial({ authority: key(), admin: key(), relayer: key(), mint: key(), vault: key() })
      .instruction();
    const initKeys = init.keys.map((m) => m.pubkey.toBase58());
    expect([initKeys[0], initKeys[6], initKeys[7], initKeys[9]]).toEqual(
      [configPda()[0], PROGRAM_ID, programDataPda()[0], SystemProgram.programId].map((k) => k.toBase58()),
    );
    const bettor = key();
    const place = await methods.placeBet!(0, new BN(1), new BN(2), 0, 0)
      .accountsPartial({ bet: key(), bettor, bettorToken: key(), vault: key(), relayer: key() })
      .instruction();
    expect(place.keys[2]!.pubkey.equals(bettorPda(bettor)[0])).toBe(true);
  });

  it('BET_STATUS is the status numbering of state.h', () => {
    const state = cSource('state.h');
    const defines = Object.fromEntries([...state.matchAll(/#define BET_STATUS_(\w+) (\d+)/g)].map((m) => [m[1], Number(m[2])]));
    expect(defines).toEqual({ OPEN: BET_STATUS.open, PAYOUT_DONE: BET_STATUS.won, HOUSE_WON: BET_STATUS.lost, REFUNDED: BET_STATUS.refunded });
  });

  it('address is the public key of the committed program keypair', () => {
    expect(programKeypair().publicKey.equals(PROGRAM_ID)).toBe(true);
    expect(PROGRAM_ID.equals(Keypair.generate().publicKey)).toBe(false);
  });
});
