import { Keypair } from '@solana/web3.js';
import * as v from 'valibot';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { FaultChains, balance, fund, sendWire, statuses, transfer } from '../../../../test/support/fault-chain.ts';
import { TempDirs, openNode, transfer as nodeTransfer } from '../../../../test/support/local-node.ts';
import { quietLog } from '../../../../test/support/quiet-log.ts';
import { WsPubSub } from '../../pubsub.ts';
import { zeroCounters } from './counters.ts';
import { seededRandom } from './rng.ts';
import { Rollbacks } from './rollback.ts';
import { TransactionFaults } from './transactions.ts';

const chains = new FaultChains();
afterAll(() => chains.removeAll());
const dirs = new TempDirs();
afterEach(() => dirs.removeAll());

const Lamports = v.object({ context: v.object({ slot: v.number() }), value: v.object({ lamports: v.number() }) });
const SYSTEM_PROGRAM = '11111111111111111111111111111111';

describe('rollback', () => {
  it('forks about the configured share of slots', () => {
    const node = openNode(dirs.make());
    const rollbacks = new Rollbacks(node, 0.25, seededRandom(3), zeroCounters(), quietLog);
    let forks = 0;
    for (let i = 0; i < 2_000; i++) {
      node.advanceSlot();
      if (rollbacks.pending) forks++;
    }
    expect(forks / 2_000).toBeGreaterThan(0.2);
    expect(forks / 2_000).toBeLessThan(0.3);
    rollbacks.stop();
    node.close();
  });

  it('abandons the first passing send of a forking slot after showing it; a failing one still answers -32002 and leaves the fork', async () => {
    const node = openNode(dirs.make());
    const counters = zeroCounters();
    const rollbacks = new Rollbacks(node, 1, seededRandom(1), counters, quietLog);
    const shown: Array<{ slot: number; accounts: Array<{ address: string; lamports: bigint | null }> }> = [];
    rollbacks.watch((slot, accounts) => shown.push({ slot, accounts }));
    const faults = new TransactionFaults(node, { drop: 0, landDelaySlots: 0 }, seededRandom(1), counters, quietLog, rollbacks);
    const [payer, to] = [Keypair.generate(), Keypair.generate()];
    await node.airdrop(payer.publicKey.toBase58(), 2_000_000_000n);
    node.advanceSlot();

    await expect(faults.send(nodeTransfer(node, payer, to, 5_000_000_000), { skipPreflight: false })).rejects.toMatchObject({ code: -32002 });
    expect(rollbacks.pending).toBe(true);
    const abandoned = await faults.send(nodeTransfer(node, payer, to, 1_000_000), { skipPreflight: false });
    expect(node.status(abandoned)).toBeNull();
    expect(node.account(to.publicKey.toBase58())).toBeNull();
    expect(shown).toEqual([
      { slot: node.slot, accounts: expect.arrayContaining([expect.objectContaining({ address: to.publicKey.toBase58(), lamports: 1_000_000n })]) },
    ]);
    const landed = await faults.send(nodeTransfer(node, payer, to, 1_000_001), { skipPreflight: false }); // the slot's fork is used up
    expect(node.status(landed)).toMatchObject({ err: null });
    expect(counters.rolledBack).toBe(1);
    rollbacks.stop();
    faults.stop();
    node.close();
  });

  it('over PubSub: processed subscribers see the abandoned transaction, confirmed and default ones never do', async () => {
    const chain = await chains.start('rollback=1,seed=1', 200); // every slot forks
    const [payer, to] = [Keypair.generate(), Keypair.generate()];
    await fund(chain, payer);
    const pubsub = new WsPubSub(chain.wsUrl, quietLog);
    const seen: Record<'processed' | 'confirmed' | 'default' | 'program', number[]> = { processed: [], confirmed: [], default: [], program: [] };
    const key = to.publicKey.toBase58();
    const onto = (list: number[]) => (r: unknown) => list.push(v.parse(Lamports, r).value.lamports);
    await pubsub.subscribe('accountSubscribe', [key, { encoding: 'base64', commitment: 'processed' }], onto(seen.processed));
    await pubsub.subscribe('accountSubscribe', [key, { encoding: 'base64', commitment: 'confirmed' }], onto(seen.confirmed));
    await pubsub.subscribe('accountSubscribe', [key, { encoding: 'base64' }], onto(seen.default));
    await pubsub.subscribe('programSubscribe', [SYSTEM_PROGRAM, { encoding: 'base64', commitment: 'processed', filters: [{ dataSize: 0 }] }], (r) =>
      seen.program.push(v.parse(v.object({ value: v.object({ account: v.object({ lamports: v.number() }) }) }), r).value.account.lamports),
    );

    const tx = await transfer(chain, payer, to, 1_000_000);
    expect((await sendWire(chain, tx.wire)).result).toBe(tx.signature); // the first send of its slot: shown, then abandoned
    await expect.poll(() => seen.processed, { timeout: 2_000 }).toEqual([1_000_000]);
    expect(seen.program).toContain(1_000_000);
    expect((await statuses(chain, [tx.signature]))[0]).toBeNull();
    expect(await balance(chain, to)).toBe(0);

    // resent until it lands (a resend in the same slot does; one in a new slot may be abandoned again)
    for (let i = 0; i < 20 && (await statuses(chain, [tx.signature]))[0] === null; i++) await sendWire(chain, tx.wire);
    expect((await statuses(chain, [tx.signature]))[0]).toMatchObject({ err: null });
    await expect.poll(() => seen.confirmed, { timeout: 2_000 }).toEqual([1_000_000]);
    expect(seen.default).toEqual([1_000_000]);
    expect(seen.processed.length).toBeGreaterThanOrEqual(2); // each abandoned showing, then the landing
    expect(chain.faults?.counters().rolledBack).toBe(seen.processed.length - 1);
    pubsub.close();
  });
});
