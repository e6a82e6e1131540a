import { cpSync, existsSync, readdirSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Keypair } from '@solana/web3.js';
import { TempDirs, drain, openNode, send, transfer } from '../../../test/support/local-node.ts';
import type { CompactionStep } from './compaction.ts';
import type { LocalNode } from './node.ts';

const dirs = new TempDirs();
afterEach(() => dirs.removeAll());

const SOL = 1_000_000_000n;

/** What a reopened node must show: balances (null: no account), statuses, and each wallet's signatures. */
interface Expected {
  balances: (bigint | null)[];
  statuses: [string, unknown][];
  signatures: string[][];
}

function observe(node: LocalNode, wallets: Keypair[], sigs: string[]): Expected {
  return {
    balances: wallets.map((w) => node.account(w.publicKey.toBase58())?.lamports ?? null),
    statuses: sigs.map((s) => [s, node.status(s)]),
    signatures: wallets.map((w) => node.signaturesFor(w.publicKey.toBase58(), { limit: 1000 }).map((e) => e.signature)),
  };
}

const nextTurn = () => new Promise<void>((r) => setImmediate(r));

describe('compaction', () => {
  it('loses nothing when the process dies at any point of it, with transactions landing meanwhile', async () => {
    const dir = dirs.make('compaction-');
    const wallets = Array.from({ length: 12 }, () => Keypair.generate());
    const [bank, doomedEarly, doomedDuring] = wallets as [Keypair, Keypair, Keypair];
    const sigs: string[] = [];
    const copies: { step: CompactionStep | 'before'; dir: string; expected: Expected }[] = [];
    let node: LocalNode;
    let amount = 1_000;
    const inflight = new Set<Promise<unknown>>();
    const land = (wire: Uint8Array) => {
      const p = send(node, wire).then((sig) => sigs.push(sig));
      inflight.add(p);
      p.finally(() => inflight.delete(p)).catch(() => undefined); // awaited through `inflight`
    };
    const somePayment = () => {
      const to = wallets[3 + (amount % 9)] as Keypair;
      return transfer(node, bank, to, amount++);
    };
    /** Waits for every transaction in flight, then copies the data dir as a SIGKILL there would leave it. */
    let paused = false;
    const crashImage = async (step: CompactionStep | 'before') => {
      paused = true;
      land(
        step === 'snapshot-started' ? transfer(node, doomedDuring, bank, node.account(doomedDuring.publicKey.toBase58())?.lamports ?? 0n, bank) : somePayment(),
      );
      await Promise.all(inflight);
      const copy = dirs.make(`crash-${step}-`);
      cpSync(dir, copy, { recursive: true });
      copies.push({ step, dir: copy, expected: observe(node, wallets, sigs) });
      paused = false;
    };

    // slices of two accounts: the snapshot is written over many turns of the event loop
    node = openNode(dir, { compactEvery: 1_000_000, compactionSlice: 2, onCompactionStep: crashImage });
    for (const w of wallets) sigs.push(await node.airdrop(w.publicKey.toBase58(), 10n * SOL));
    for (let i = 0; i < 20; i++) sigs.push(await send(node, somePayment()));
    sigs.push(await drain(node, doomedEarly, bank)); // deleted before the compaction
    expect(node.account(doomedEarly.publicKey.toBase58())).toBeNull();
    await crashImage('before');

    let landing = true;
    const background = (async () => {
      while (landing) {
        if (!paused) land(somePayment());
        await nextTurn();
      }
    })();
    const report = await node.compact();
    landing = false;
    await background;
    await Promise.all(inflight);
    expect(report?.accounts).toBeGreaterThanOrEqual(11);
    expect(copies.map((c) => c.step)).toEqual(['before', 'rotated', 'snapshot-started', 'snapshot-written', 'snapshot-installed', 'done']);
    expect(node.account(doomedDuring.publicKey.toBase58())).toBeNull();
    const final = observe(node, wallets, sigs);
    node.close();

    // the copies really are the states in between
    const files = (step: string) => readdirSync(copies.find((c) => c.step === step)?.dir ?? '').sort();
    expect(files('before')).toEqual(['journal.1.log']);
    expect(files('rotated')).toEqual(['journal.1.log', 'journal.2.log']);
    expect(files('snapshot-started')).toEqual(['journal.1.log', 'journal.2.log', 'snapshot.2.tmp']);
    expect(files('snapshot-written')).toEqual(['journal.1.log', 'journal.2.log', 'snapshot.2.tmp']);
    expect(files('snapshot-installed')).toEqual(['journal.1.log', 'journal.2.log', 'snapshot.jsonl']);
    expect(files('done')).toEqual(['journal.2.log', 'snapshot.jsonl']);
    expect(copies.find((c) => c.step === 'done')?.expected.signatures[1]?.length).toBe(2); // the deleted account keeps its airdrop and its drain

    for (const { step, dir: copy, expected } of copies) {
      const reopened = openNode(copy);
      expect(observe(reopened, wallets, sigs.slice(0, expected.statuses.length)), `reopened after a crash at ${step}`).toEqual(expected);
      await reopened.compact(); // and folded again, from whatever the crash left
      reopened.close();
      const again = openNode(copy);
      expect(observe(again, wallets, sigs.slice(0, expected.statuses.length)), `compacted after a crash at ${step}`).toEqual(expected);
      again.close();
      expect(readdirSync(copy).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    }

    const last = openNode(dir);
    expect(observe(last, wallets, sigs)).toEqual(final);
    last.close();
  });

  it('compacts on its own once the journal holds compactEvery records, and keeps landing transactions', async () => {
    const dir = dirs.make('compaction-');
    const [a, b] = [Keypair.generate(), Keypair.generate()];
    const node = openNode(dir, { compactEvery: 5 });
    await node.airdrop(a.publicKey.toBase58(), 10n * SOL);
    for (let i = 0; i < 12; i++) await send(node, transfer(node, a, b, 1_000_000 + i));
    await node.compact(); // waits for the one the journal started, if any is running
    expect(existsSync(`${dir}/snapshot.jsonl`)).toBe(true);
    const segments = readdirSync(dir).filter((f) => f.startsWith('journal.'));
    expect(segments).toHaveLength(1);
    expect(segments[0]).not.toBe('journal.1.log'); // rotated at least once
    node.close();
    const again = openNode(dir);
    expect(again.account(b.publicKey.toBase58())?.lamports).toBe(BigInt(12 * 1_000_000 + 66));
    again.close();
  });
});
