import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Keypair, type PublicKey, Transaction, TransactionInstruction } from '@solana/web3.js';
import { Account, LiteSvm } from 'litesvm/dist/internal.js';
import { PROGRAM_ID, PROGRAM_SO_PATH } from '../../../program/index.ts';
import { TempDirs, openNode } from '../../../test/support/local-node.ts';
import type { LocalNode } from './node.ts';
import { keyBytes } from './svm.ts';

const dirs = new TempDirs();
afterEach(() => dirs.removeAll());

const SOL = 1_000_000_000n;
const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const OLD_SIG = '5'.repeat(87);
const REPLAYED_SIG = '4'.repeat(87);

/**
 * A data dir as earlier versions left it: `snapshot.bin` (a JSON header, then LiteSVM's own bytes)
 * holding the program (upgradeable), a wallet, a token-program account and a program-owned
 * account, plus `journal.log` with one later record.
 */
function legacyDataDir(wallet: Keypair, later: Keypair, mint: PublicKey, owned: PublicKey): string {
  const dir = dirs.make('legacy-');
  const svm = new LiteSvm();
  svm.addProgram(PROGRAM_ID.toBytes(), new Uint8Array(readFileSync(PROGRAM_SO_PATH)));
  svm.airdrop(wallet.publicKey.toBytes(), 5n * SOL);
  const mintData = new Uint8Array(82);
  mintData[44] = 6; // decimals
  mintData[45] = 1; // initialised
  svm.setAccount(mint.toBytes(), new Account(2n * SOL, mintData, keyBytes(TOKEN_PROGRAM), false, 0n));
  svm.setAccount(owned.toBytes(), new Account(3n * SOL, Uint8Array.from([9, 8, 7]), PROGRAM_ID.toBytes(), false, 0n));
  const header = Buffer.from(JSON.stringify({ slot: 40, statuses: [[OLD_SIG, { slot: 39, err: null }]] }));
  const len = Buffer.alloc(4);
  len.writeUInt32LE(header.length);
  writeFileSync(join(dir, 'snapshot.bin'), Buffer.concat([len, header, svm.toBytes()]));
  const record = { s: 41, g: REPLAYED_SIG, e: null, a: [[later.publicKey.toBase58(), String(7n * SOL), '11111111111111111111111111111111', 0, '']] };
  writeFileSync(join(dir, 'journal.log'), `${JSON.stringify(record)}\n`);
  return dir;
}

/** Calls the program with no instruction data: it runs, and refuses with one of its own error codes. */
async function programRuns(node: LocalNode, payer: Keypair): Promise<unknown> {
  const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: node.latestBlockhash().blockhash }).add(
    new TransactionInstruction({ programId: PROGRAM_ID, keys: [], data: Buffer.from([Math.floor(Math.random() * 256)]) }),
  );
  tx.sign(payer);
  const sig = await node.submit(tx.serialize(), { skipPreflight: true });
  return node.status(sig)?.err;
}

describe('a data dir with a legacy snapshot.bin', () => {
  it('opens from it, and its first compaction moves it to snapshot.jsonl, executables and all', async () => {
    const [wallet, later] = [Keypair.generate(), Keypair.generate()];
    const [mint, owned] = [Keypair.generate().publicKey, Keypair.generate().publicKey];
    const dir = legacyDataDir(wallet, later, mint, owned);
    const check = async (node: LocalNode) => {
      expect(node.account(wallet.publicKey.toBase58())?.lamports).toBeLessThanOrEqual(5n * SOL);
      expect(node.account(later.publicKey.toBase58())?.lamports).toBe(7n * SOL);
      expect(node.account(mint.toBase58())).toMatchObject({ owner: TOKEN_PROGRAM, lamports: 2n * SOL });
      expect(node.account(owned.toBase58())).toMatchObject({ owner: PROGRAM_ID.toBase58(), data: Uint8Array.from([9, 8, 7]) });
      expect(node.account(PROGRAM_ID.toBase58())?.executable).toBe(true);
      expect(node.status(OLD_SIG)).toEqual({ slot: 39, err: null });
      expect(node.status(REPLAYED_SIG)).toEqual({ slot: 41, err: null });
      expect(node.signaturesFor(later.publicKey.toBase58(), { limit: 10 }).map((e) => e.signature)).toEqual([REPLAYED_SIG]);
      expect(node.slot).toBeGreaterThan(41);
      // the program executes: the error is its own (a custom code), not a missing or unloadable program
      expect(await programRuns(node, wallet)).toMatchObject({ InstructionError: [0, { Custom: expect.any(Number) }] });
    };

    const node = openNode(dir);
    await check(node);
    await node.compact(); // the migration the open started (or a new one)
    node.close();
    // journal.log was segment 0; the open's migration and the compaction above may each have moved to a next one
    const files = readdirSync(dir).sort();
    expect(files).toHaveLength(2);
    expect(files[0]).toMatch(/^journal\.[1-9]\d*\.log$/);
    expect(files[1]).toBe('snapshot.jsonl');
    expect(existsSync(join(dir, 'snapshot.bin'))).toBe(false);

    const again = openNode(dir);
    await check(again);
    again.close();
  });
});
