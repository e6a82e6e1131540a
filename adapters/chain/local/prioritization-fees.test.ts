import { afterEach, describe, expect, it } from 'vitest';
import { ComputeBudgetProgram, Keypair, SystemProgram, Transaction } from '@solana/web3.js';
import { TempDirs, openNode, rpcCall, type RpcAnswer } from '../../../test/support/local-node.ts';
import type { LocalNode } from './node.ts';
import { RECENT_FEE_SLOTS } from './prioritization-fees.ts';
import { computeUnitPrice, readWire } from './wire.ts';

const dirs = new TempDirs();
afterEach(() => dirs.removeAll());

const call = rpcCall;

/** A transfer that sets its compute-unit limit and price through the ComputeBudget program. */
function pricedTransfer(node: LocalNode, from: Keypair, to: Keypair, lamports: number, microLamports: number, units = 200_000): Uint8Array {
  const tx = new Transaction({ feePayer: from.publicKey, recentBlockhash: node.latestBlockhash().blockhash }).add(
    ComputeBudgetProgram.setComputeUnitLimit({ units }),
    ComputeBudgetProgram.setComputeUnitPrice({ microLamports }),
    SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to.publicKey, lamports }),
  );
  tx.sign(from);
  return tx.serialize();
}

const send = (node: LocalNode, wire: Uint8Array) => call(node, 'sendTransaction', [Buffer.from(wire).toString('base64'), { encoding: 'base64' }]);
const feesAt = (answer: RpcAnswer, slot: number) =>
  (answer.result as Array<{ slot: number; prioritizationFee: number }>).find((e) => e.slot === slot)?.prioritizationFee;

describe('ComputeBudget instructions and getRecentPrioritizationFees', () => {
  it('lands a transaction that sets its compute-unit limit and price, charging the priority fee', async () => {
    const node = openNode(dirs.make());
    const [payer, to] = [Keypair.generate(), Keypair.generate()];
    await node.airdrop(payer.publicKey.toBase58(), 1_000_000_000n);
    const wire = pricedTransfer(node, payer, to, 1_000_000, 5_000, 200_000);
    expect(computeUnitPrice(wire, readWire(wire))).toBe(5_000n);

    const sent = await send(node, wire);
    expect(sent.error).toBeUndefined();
    expect((await call(node, 'getSignatureStatuses', [[sent.result]])).result.value[0]).toMatchObject({ err: null });
    expect(node.account(to.publicKey.toBase58())?.lamports).toBe(1_000_000n);
    // 5,000 lamports per signature, plus 5,000 micro-lamports for each of the 200,000 units asked for
    expect(node.account(payer.publicKey.toBase58())?.lamports).toBe(1_000_000_000n - 1_000_000n - 5_000n - 1_000n);
    node.close();
  });

  it('answers per recent slot the highest price paid by transactions that wrote the given accounts, 0 when none', async () => {
    const node = openNode(dirs.make());
    const [a, b, c, idle] = [Keypair.generate(), Keypair.generate(), Keypair.generate(), Keypair.generate()];
    for (const w of [a, b]) await node.airdrop(w.publicKey.toBase58(), 1_000_000_000n);
    node.advanceSlot();
    const first = node.slot;
    await send(node, pricedTransfer(node, a, c, 1_000_000, 7_000));
    await send(node, pricedTransfer(node, b, c, 1_000_000, 3_000));
    node.advanceSlot();
    await send(node, pricedTransfer(node, b, c, 2_000_000, 0)); // no price: pays nothing extra
    const key = (k: Keypair) => k.publicKey.toBase58();

    const all = await call(node, 'getRecentPrioritizationFees');
    expect(all.result.at(-1)).toEqual({ slot: node.slot, prioritizationFee: 0 });
    expect(feesAt(all, first)).toBe(7_000);
    expect(feesAt(await call(node, 'getRecentPrioritizationFees', [[key(b)]]), first)).toBe(3_000);
    expect(feesAt(await call(node, 'getRecentPrioritizationFees', [[key(b), key(a)]]), first)).toBe(7_000);
    expect(feesAt(await call(node, 'getRecentPrioritizationFees', [[key(c)]]), first)).toBe(7_000); // written, not signed
    expect((await call(node, 'getRecentPrioritizationFees', [[key(idle)]])).result.every((e: { prioritizationFee: number }) => e.prioritizationFee === 0)).toBe(
      true,
    );

    for (let i = 0; i < RECENT_FEE_SLOTS; i++) node.advanceSlot();
    const later = await call(node, 'getRecentPrioritizationFees', [[key(a)]]);
    expect(later.result).toHaveLength(RECENT_FEE_SLOTS);
    expect(feesAt(later, first)).toBeUndefined();

    expect((await call(node, 'getRecentPrioritizationFees', [['nope']])).error).toMatchObject({ code: -32602 });
    const many = Array.from({ length: 129 }, () => key(Keypair.generate()));
    expect((await call(node, 'getRecentPrioritizationFees', [many])).error).toMatchObject({ code: -32602, message: /max 128/ });
    node.close();
  });
});
