import { afterEach, describe, expect, it } from 'vitest';
import { Keypair } from '@solana/web3.js';
import { TempDirs, drain, openNode, send, transfer } from '../../../test/support/local-node.ts';
import { quietLog } from '../../../test/support/quiet-log.ts';
import { JsonRpcDispatcher } from './json-rpc.ts';
import type { LocalNode } from './node.ts';
import { rpcMethods } from './rpc-methods.ts';

const dirs = new TempDirs();
afterEach(() => dirs.removeAll());

const SOL = 1_000_000_000n;

/** One JSON-RPC call to `node`, answered as over HTTP. */
async function call(
  node: LocalNode,
  method: string,
  params: unknown[],
): Promise<{ result?: unknown; error?: { code: number; message: string; data?: unknown } }> {
  const dispatcher = new JsonRpcDispatcher(rpcMethods(node, 'genesis'), quietLog);
  return JSON.parse(await dispatcher.handleText(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }))) as { result?: unknown };
}

async function signaturesOf(node: LocalNode, address: string, config: object = {}): Promise<string[]> {
  const res = await call(node, 'getSignaturesForAddress', [address, config]);
  if (res.error) throw new Error(JSON.stringify(res.error));
  return (res.result as { signature: string }[]).map((r) => r.signature);
}

describe('getSignaturesForAddress', () => {
  it('lists the transactions that wrote an address, newest first, paged with limit, before and until', async () => {
    const node = openNode(dirs.make());
    const [payer, bet, other] = [Keypair.generate(), Keypair.generate(), Keypair.generate()];
    const airdrop = await node.airdrop(payer.publicKey.toBase58(), 10n * SOL);
    const sigs: string[] = [];
    for (let i = 0; i < 5; i++) {
      sigs.push(await send(node, transfer(node, payer, bet, SOL / 10n + BigInt(i))));
      if (i === 2) node.advanceSlot();
    }
    const lastSlot = node.slot;
    node.advanceSlot();
    const toOther = await send(node, transfer(node, payer, other, SOL));
    const newestFirst = [...sigs].reverse();
    const addr = bet.publicKey.toBase58();

    const res = await call(node, 'getSignaturesForAddress', [addr]);
    expect(res.result).toHaveLength(5);
    expect((res.result as unknown[])[0]).toEqual({
      signature: sigs[4],
      slot: lastSlot,
      err: null,
      memo: null,
      blockTime: expect.any(Number),
      confirmationStatus: 'finalized',
    });
    expect(await signaturesOf(node, addr)).toEqual(newestFirst);
    expect(await signaturesOf(node, addr, { limit: 2 })).toEqual(newestFirst.slice(0, 2));
    expect(await signaturesOf(node, addr, { limit: 2, before: sigs[3] })).toEqual([sigs[2], sigs[1]]);
    expect(await signaturesOf(node, addr, { until: sigs[1] })).toEqual([sigs[4], sigs[3], sigs[2]]);
    expect(await signaturesOf(node, addr, { before: sigs[4], until: sigs[1] })).toEqual([sigs[3], sigs[2]]);
    expect(await signaturesOf(node, addr, { before: toOther })).toEqual(newestFirst); // a transaction that never wrote it, placed by slot
    expect(await signaturesOf(node, addr, { before: '5'.repeat(87) })).toEqual([]); // an unknown one: nothing
    expect(await signaturesOf(node, payer.publicKey.toBase58(), { limit: 1000 })).toEqual([toOther, ...newestFirst, airdrop]);
    expect(await signaturesOf(node, Keypair.generate().publicKey.toBase58())).toEqual([]);

    for (const [config, message] of [
      [{ limit: 0 }, /Invalid limit; max 1000/],
      [{ limit: 1001 }, /Invalid limit; max 1000/],
      [{ before: 'not-a-signature' }, /not a base58 signature/],
      [{ commitment: 'processed' }, /commitment below `confirmed`/],
    ] as const) {
      expect((await call(node, 'getSignaturesForAddress', [addr, config])).error).toMatchObject({ code: -32602, message: expect.stringMatching(message) });
    }
    node.close();
  });

  it('keeps them across a restart and a compaction, also for an account since deleted', async () => {
    const dir = dirs.make();
    const [payer, closed] = [Keypair.generate(), Keypair.generate()];
    let node = openNode(dir);
    await node.airdrop(payer.publicKey.toBase58(), 10n * SOL);
    const opened = await send(node, transfer(node, payer, closed, SOL));
    const emptied = await drain(node, closed, payer); // the account is gone, like a closed bet account
    const addr = closed.publicKey.toBase58();
    expect(node.account(addr)).toBeNull();
    expect(await signaturesOf(node, addr)).toEqual([emptied, opened]);
    node.close();

    node = openNode(dir); // from the journal
    expect(await signaturesOf(node, addr)).toEqual([emptied, opened]);
    await node.compact();
    const later = await send(node, transfer(node, payer, closed, SOL)); // recreated after the snapshot: in the next segment
    node.close();

    node = openNode(dir); // from the snapshot, then the journal
    expect(await signaturesOf(node, addr)).toEqual([later, emptied, opened]);
    expect(node.status(emptied)).toEqual({ slot: expect.any(Number), err: null });
    node.close();
  });
});

describe('minContextSlot', () => {
  it('refuses a read for a slot the node has not reached with -32016 and the slot it is at, and answers once reached', async () => {
    const node = openNode(dirs.make());
    const wallet = Keypair.generate();
    await node.airdrop(wallet.publicKey.toBase58(), SOL);
    const addr = wallet.publicKey.toBase58();
    const ahead = node.slot + 2;
    const refusal = { code: -32016, message: 'Minimum context slot has not been reached', data: { contextSlot: node.slot } };
    expect((await call(node, 'getAccountInfo', [addr, { encoding: 'base64', minContextSlot: ahead }])).error).toEqual(refusal);
    expect((await call(node, 'getMultipleAccounts', [[addr], { minContextSlot: ahead }])).error).toEqual(refusal);
    expect((await call(node, 'getSignaturesForAddress', [addr, { minContextSlot: ahead }])).error).toEqual(refusal);

    node.advanceSlot();
    node.advanceSlot();
    expect(await call(node, 'getAccountInfo', [addr, { encoding: 'base64', minContextSlot: ahead }])).toMatchObject({
      result: { context: { slot: ahead }, value: { lamports: Number(SOL) } },
    });
    expect(await call(node, 'getMultipleAccounts', [[addr], { minContextSlot: ahead }])).toMatchObject({ result: { value: [{ lamports: Number(SOL) }] } });
    expect(await call(node, 'getSignaturesForAddress', [addr, { minContextSlot: ahead }])).toMatchObject({ result: [{ err: null }] });
    node.close();
  });
});
