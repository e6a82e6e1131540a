import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Keypair, SystemProgram, Transaction } from '@solana/web3.js';
import { log } from '../../../runtime/log.ts';
import { LocalNode } from './node.ts';
import { RpcFailure } from './rpc-failure.ts';

const quiet = log.child({ level: 'silent' });
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const open = (dir: string, compactEvery = 1_000) => LocalNode.open({ dir, genesisHash: 'G3nesis1111111111111111111111111111111111111', log: quiet, compactEvery });

function transfer(node: LocalNode, from: Keypair, to: Keypair, lamports: number): Uint8Array {
  const tx = new Transaction({ feePayer: from.publicKey, recentBlockhash: node.latestBlockhash().blockhash }).add(
    SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to.publicKey, lamports }),
  );
  tx.sign(from);
  return tx.serialize();
}

describe('LocalNode', () => {
  it('survives reopening with runtime compactions in between: balances, statuses, no reissued slot', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'node-'));
    dirs.push(dir);
    const a = Keypair.generate();
    const b = Keypair.generate();
    const node = open(dir, 3); // compacts every third record
    await node.airdrop(a.publicKey.toBase58(), 10_000_000_000n);
    const sigs: string[] = [];
    for (let i = 0; i < 7; i++) {
      node.advanceSlot();
      sigs.push(await node.submit(transfer(node, a, b, 1_000_000 + i), { skipPreflight: false }));
    }
    const slotBefore = node.slot;
    const balanceA = node.account(a.publicKey.toBase58())?.lamports;
    node.close();

    const again = open(dir, 3);
    expect(again.account(b.publicKey.toBase58())?.lamports).toBe(BigInt(7 * 1_000_000 + 21));
    expect(again.account(a.publicKey.toBase58())?.lamports).toBe(balanceA);
    for (const sig of sigs) expect(again.status(sig)).toMatchObject({ err: null });
    expect(again.slot).toBeGreaterThan(slotBefore);
    again.close();
  });

  it('refuses a failing transaction in preflight without charging its fee; with skipPreflight it lands as failed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'node-'));
    dirs.push(dir);
    const a = Keypair.generate();
    const node = open(dir);
    await node.airdrop(a.publicKey.toBase58(), 2_000_000_000n);
    const before = node.account(a.publicKey.toBase58())?.lamports;
    const tooMuch = transfer(node, a, Keypair.generate(), 5_000_000_000);
    const err = await node.submit(tooMuch, { skipPreflight: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcFailure);
    expect((err as RpcFailure).data).toMatchObject({ err: { InstructionError: [0, { Custom: 1 }] } });
    expect(node.account(a.publicKey.toBase58())?.lamports).toBe(before);

    const sig = await node.submit(tooMuch, { skipPreflight: true });
    expect(node.status(sig)).toMatchObject({ err: { InstructionError: [0, { Custom: 1 }] } });
    expect(node.account(a.publicKey.toBase58())?.lamports).toBe(before! - 5_000n);
    await expect(node.submit(tooMuch, { skipPreflight: true })).rejects.toMatchObject({ data: { err: 'AlreadyProcessed' } });
    node.close();
  });

  it('executes concurrent submissions once each, in arrival order, and refuses a duplicate still waiting for its fsync', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'node-'));
    dirs.push(dir);
    const a = Keypair.generate();
    const b = Keypair.generate();
    const node = open(dir);
    await node.airdrop(a.publicKey.toBase58(), 10_000_000_000n);
    const wires = Array.from({ length: 5 }, (_, i) => transfer(node, a, b, 1_000_000 + i));
    const results = await Promise.allSettled([...wires, wires[0]!].map((w) => node.submit(w, { skipPreflight: false })));
    expect(results.slice(0, 5).every((r) => r.status === 'fulfilled')).toBe(true);
    expect(results[5]).toMatchObject({ status: 'rejected', reason: { data: { err: 'AlreadyProcessed' } } });
    expect(node.account(b.publicKey.toBase58())?.lamports).toBe(5_000_010n);
    node.close();
  });
});
