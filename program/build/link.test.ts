/**
 * The link step end to end: clang objects in, an SBPF v0 .so out that the real loader runs
 * (rodata addresses, pointer tables, cross-object calls, syscalls), deterministic output, and
 * refusal of what SBPF v0 cannot load (mutable globals).
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Keypair, TransactionInstruction } from '@solana/web3.js';
import { address } from '@solana/kit';
import { afterAll, describe, expect, it } from 'vitest';
import { BetChain } from '../test/svm.ts';
import { PROGRAM_OUTPUT_PATH, buildProgram, buildSharedObject } from './build.ts';
import { tempDir } from '../../test/support/temp-dir.ts';

const work = tempDir('link-test-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

function source(name: string, text: string): string {
  const path = join(work, name);
  writeFileSync(path, text);
  return path;
}

const MAIN = `
void sol_log_(const char *message, unsigned long long len);
const char *pick(unsigned long long index);
unsigned long long entrypoint(const unsigned char *input) {
  unsigned long long accounts = *(const unsigned long long *)input;
  sol_log_(pick(accounts), 5);
  sol_log_("linked-ok", 9);
  return accounts == 0 ? 0 : 7;
}
`;
const TABLE = `
static const char *const WORDS[2] = {"alpha", "gamma"};
const char *pick(unsigned long long index) { return WORDS[index & 1]; }
`;

describe('link step', () => {
  it('links two objects into a .so the loader runs: rodata, pointer table, cross-object call, syscall', () => {
    const elf = buildSharedObject([source('main.c', MAIN), source('table.c', TABLE)]);
    const chain = new BetChain({ deploy: false });
    const programId = Keypair.generate().publicKey;
    chain.svm.addProgram(address(programId.toBase58()), elf);
    const payer = Keypair.generate();
    chain.airdrop(payer.publicKey, 1_000_000_000n);
    const sent = chain.mustSend([new TransactionInstruction({ programId, keys: [], data: Buffer.alloc(0) })], [payer]);
    expect(sent.logs).toContain('Program log: alpha');
    expect(sent.logs).toContain('Program log: linked-ok');
    const withAccount = chain.send(
      [new TransactionInstruction({ programId, keys: [{ pubkey: payer.publicKey, isSigner: true, isWritable: true }], data: Buffer.alloc(0) })],
      [payer],
    );
    expect(withAccount.ok).toBe(false);
    if (!withAccount.ok) {
      expect(withAccount.logs).toContain('Program log: gamma');
      expect(withAccount.code).toBe(7);
    }
  });

  it('refuses a mutable global (SBPF v0 has no writable data)', () => {
    const bad = source(
      'counter.c',
      'unsigned long long counter;\nunsigned long long entrypoint(const unsigned char *input) { counter += *input; return counter; }\n',
    );
    expect(() => buildSharedObject([bad])).toThrow(/writable section|mutable globals/);
  });

  it('builds the program deterministically, byte for byte the committed .so', () => {
    const first = buildProgram();
    expect(Buffer.from(buildProgram()).equals(Buffer.from(first))).toBe(true);
    expect(Buffer.from(readFileSync(PROGRAM_OUTPUT_PATH)).equals(Buffer.from(first))).toBe(true);
  });
});
