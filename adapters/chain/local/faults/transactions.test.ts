import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import * as v from 'valibot';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { TempDirs, openNode, transfer as nodeTransfer } from '../../../../test/support/local-node.ts';
import { FaultChains, balance, fund, sendWire, statuses, transfer } from '../../../../test/support/fault-chain.ts';
import { quietLog } from '../../../../test/support/quiet-log.ts';
import { WsPubSub } from '../../pubsub.ts';
import { BLOCKHASH_WINDOW } from '../blockhashes.ts';
import { zeroCounters } from './counters.ts';
import { seededRandom } from './rng.ts';
import { TransactionFaults } from './transactions.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const chains = new FaultChains();
afterAll(() => chains.removeAll());
const dirs = new TempDirs();
afterEach(() => dirs.removeAll());

/** Everything the chain's journal segments hold, as text. */
const journalText = (dataDir: string): string => {
  const dir = join(dataDir, 'chain', 'state');
  return readdirSync(dir)
    .filter((f) => f.startsWith('journal'))
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('\n');
};

describe('drop', () => {
  it('answers about the configured share of passing sends and never runs them; resends land them in the end', async () => {
    const chain = await chains.start('drop=0.3,seed=7');
    const [payer, to] = [Keypair.generate(), Keypair.generate()];
    await fund(chain, payer, 100);
    const pubsub = new WsPubSub(chain.wsUrl, quietLog);
    const notified: number[] = [];
    await pubsub.subscribe('accountSubscribe', [to.publicKey.toBase58(), { encoding: 'base64', commitment: 'confirmed' }], (r) =>
      notified.push(v.parse(v.object({ value: v.object({ lamports: v.number() }) }), r).value.lamports),
    );
    const sends = await Promise.all(Array.from({ length: 200 }, (_, i) => transfer(chain, payer, to, 1_000_000 + i)));
    for (const s of sends) expect((await sendWire(chain, s.wire)).result).toBe(s.signature); // every one answered alike
    const seen = await statuses(
      chain,
      sends.map((s) => s.signature),
    );
    const dropped = sends.filter((_, i) => seen[i] === null);
    expect(dropped.length / sends.length).toBeGreaterThan(0.2);
    expect(dropped.length / sends.length).toBeLessThan(0.4);
    expect(chain.faults?.counters().dropped).toBe(dropped.length);

    // no trace of a dropped send: no status, no journal line, no notification, no lamports moved
    const landedLamports = sends.reduce((sum, _s, i) => (seen[i] === null ? sum : sum + 1_000_000 + i), 0);
    await expect.poll(() => notified.length, { timeout: 5_000 }).toBe(sends.length - dropped.length);
    expect(await balance(chain, to)).toBe(landedLamports);
    const journal = journalText(chains.dir);
    for (const s of dropped) expect(journal).not.toContain(s.signature);

    // resending the same signed bytes is a fresh draw each time: every one lands within a few rounds
    let missing = dropped;
    for (let round = 0; round < 20 && missing.length > 0; round++) {
      for (const s of missing) expect((await sendWire(chain, s.wire)).result).toBe(s.signature);
      const now = await statuses(
        chain,
        missing.map((s) => s.signature),
      );
      missing = missing.filter((_, i) => now[i] === null);
    }
    expect(missing).toEqual([]);
    expect(await balance(chain, to)).toBe(sends.reduce((sum, _s, i) => sum + 1_000_000 + i, 0));
    pubsub.close();
  }, 30_000);

  it('still refuses a failing preflight with -32002, whatever the draw', async () => {
    const chain = await chains.start('drop=0.5,seed=1');
    const [payer, to] = [Keypair.generate(), Keypair.generate()];
    await fund(chain, payer, 1);
    for (let i = 0; i < 20; i++) {
      const tooMuch = await transfer(chain, payer, to, 5_000_000_000 + i);
      expect((await sendWire(chain, tooMuch.wire)).error).toMatchObject({ code: -32002, data: { err: { InstructionError: [0, { Custom: 1 }] } } });
    }
    expect(chain.faults?.counters().dropped).toBe(0);
  });
});

describe('land-delay-slots', () => {
  it('runs a passing send n slots after it was accepted, once however often it is resent, and drops it when its blockhash expires first', async () => {
    const node = openNode(dirs.make());
    const counters = zeroCounters();
    const faults = new TransactionFaults(node, { drop: 0, landDelaySlots: 3 }, seededRandom(1), counters, quietLog);
    const [payer, to] = [Keypair.generate(), Keypair.generate()];
    await node.airdrop(payer.publicKey.toBase58(), 10_000_000_000n);
    const wire = nodeTransfer(node, payer, to, 1_000_000);
    const accepted = node.slot;
    const signature = await faults.send(wire, { skipPreflight: false });
    expect(await faults.send(wire, { skipPreflight: false })).toBe(signature); // queued already: not queued twice
    node.advanceSlot();
    node.advanceSlot();
    expect(node.status(signature)).toBeNull();
    node.advanceSlot();
    await expect.poll(() => node.status(signature)).toEqual({ slot: accepted + 3, err: null });
    expect(node.account(to.publicKey.toBase58())?.lamports).toBe(1_000_000n);
    await expect(faults.send(wire, { skipPreflight: false })).rejects.toMatchObject({ data: { err: 'AlreadyProcessed' } });
    expect(await faults.send(wire, { skipPreflight: true })).toBe(signature); // landed: answered, never run again
    expect(node.account(to.publicKey.toBase58())?.lamports).toBe(1_000_000n);

    const signedAt = node.slot;
    const old = nodeTransfer(node, payer, to, 2_000_000); // signed now, sent when its blockhash has two slots left
    while (node.slot < signedAt + BLOCKHASH_WINDOW - 2) node.advanceSlot();
    const late = await faults.send(old, { skipPreflight: false });
    for (let i = 0; i < 3; i++) node.advanceSlot();
    await sleep(20);
    expect(node.status(late)).toBeNull();
    expect(counters).toMatchObject({ delayed: 2, expired: 1 });
    faults.stop();
    node.close();
  });

  it('over JSON-RPC: status null until the slot comes; a restart loses the queue but never a landed transaction', async () => {
    let chain = await chains.start('land-delay-slots=3', 50);
    const [payer, to] = [Keypair.generate(), Keypair.generate()];
    await fund(chain, payer);
    const first = await transfer(chain, payer, to, 1_000_000);
    expect((await sendWire(chain, first.wire)).result).toBe(first.signature);
    expect((await statuses(chain, [first.signature]))[0]).toBeNull();
    await expect.poll(async () => (await statuses(chain, [first.signature]))[0], { timeout: 5_000, interval: 20 }).toMatchObject({ err: null });
    expect((await sendWire(chain, first.wire)).error).toMatchObject({ code: -32002, data: { err: 'AlreadyProcessed' } });
    expect(chain.faults?.counters().delayed).toBe(1);

    chain = await chains.start('land-delay-slots=100', 50); // a restart (no slot of its comes before the next one)
    const queued = await transfer(chain, payer, to, 2_000_000);
    expect((await sendWire(chain, queued.wire)).result).toBe(queued.signature);
    chain = await chains.start(null);
    expect(await statuses(chain, [first.signature, queued.signature])).toEqual([expect.objectContaining({ err: null }), null]);
    expect(await balance(chain, to)).toBe(1_000_000);
  });
});
