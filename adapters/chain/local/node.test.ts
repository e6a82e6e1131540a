import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Keypair } from '@solana/web3.js';
import { TempDirs, drain, openNode, transfer } from '../../../test/support/local-node.ts';
import { RpcFailure } from './rpc-failure.ts';

const dirs = new TempDirs();
afterEach(() => dirs.removeAll());
const open = (dir: string, compactEvery = 1_000) => openNode(dir, { compactEvery });

describe('LocalNode', () => {
  it('restarts from its snapshot of account images: accounts, deletions, failed and good statuses, signatures', async () => {
    const dir = dirs.make();
    const wallets = Array.from({ length: 7 }, () => Keypair.generate());
    const [a, b, gone] = wallets as [Keypair, Keypair, Keypair];
    const node = openNode(dir, { compactEvery: 1_000, compactionSlice: 2 });
    for (const w of wallets) await node.airdrop(w.publicKey.toBase58(), 3_000_000_000n);
    const good = await node.submit(transfer(node, a, b, 1_000_000), { skipPreflight: false });
    const failed = await node.submit(transfer(node, a, b, 9_000_000_000), { skipPreflight: true });
    await drain(node, gone, b);
    const seen = (n: typeof node) => ({
      balances: wallets.map((w) => n.account(w.publicKey.toBase58())?.lamports ?? null),
      statuses: [n.status(good), n.status(failed)],
      signatures: wallets.map((w) => n.signaturesFor(w.publicKey.toBase58(), { limit: 10 })),
    });
    const before = seen(node);
    expect(before.balances[2]).toBeNull();
    expect(before.statuses[1]).toMatchObject({ err: { InstructionError: [0, { Custom: 1 }] } });
    const report = await node.compact();
    node.close();

    expect(report).toMatchObject({ accounts: 6, addresses: 7 });
    expect(readdirSync(dir).sort()).toEqual(['journal.2.log', 'snapshot.jsonl']);
    expect(readFileSync(join(dir, 'journal.2.log'), 'utf8')).toBe('');
    const lines = readFileSync(join(dir, 'snapshot.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => Object.keys(JSON.parse(l) as object)[0]);
    expect(lines.filter((k) => k === 'accounts')).toHaveLength(3); // written in slices, one line each
    expect(lines.at(-1)).toBe('end');

    const again = openNode(dir);
    expect(seen(again)).toEqual(before);
    expect(again.liveAddresses().sort()).toEqual(
      wallets
        .filter((w) => w !== gone)
        .map((w) => w.publicKey.toBase58())
        .sort(),
    );
    again.close();
  });

  it('survives reopening with runtime compactions in between: balances, statuses, no reissued slot', async () => {
    const dir = dirs.make();
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
    const dir = dirs.make();
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
    const dir = dirs.make();
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
