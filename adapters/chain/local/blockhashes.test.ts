import { afterEach, describe, expect, it } from 'vitest';
import { Keypair } from '@solana/web3.js';
import { TempDirs, openNode, rpcCall, transfer } from '../../../test/support/local-node.ts';
import { BLOCKHASH_WINDOW } from './blockhashes.ts';
import type { LocalNode } from './node.ts';

const dirs = new TempDirs();
afterEach(() => dirs.removeAll());

const call = rpcCall;

const sendWire = (node: LocalNode, wire: Uint8Array, skipPreflight = false) =>
  call(node, 'sendTransaction', [Buffer.from(wire).toString('base64'), { encoding: 'base64', skipPreflight }]);

describe('blockhash validity', () => {
  it('accepts a blockhash up to getBlockHeight = its lastValidBlockHeight and refuses it with BlockhashNotFound after', async () => {
    const node = openNode(dirs.make());
    const [payer, to] = [Keypair.generate(), Keypair.generate()];
    await node.airdrop(payer.publicKey.toBase58(), 10_000_000_000n);
    const latest = (await call(node, 'getLatestBlockhash')).result.value as { blockhash: string; lastValidBlockHeight: number };
    expect(latest.lastValidBlockHeight).toBe((await call(node, 'getBlockHeight')).result + BLOCKHASH_WINDOW);
    const [onTime, late, lateUnchecked] = [1, 2, 3].map((n) => transfer(node, payer, to, 1_000_000 + n)) as [Uint8Array, Uint8Array, Uint8Array];

    while ((await call(node, 'getBlockHeight')).result < latest.lastValidBlockHeight) node.advanceSlot();
    expect((await call(node, 'isBlockhashValid', [latest.blockhash])).result.value).toBe(true);
    expect((await sendWire(node, onTime)).result).toEqual(expect.any(String));

    node.advanceSlot(); // one block past lastValidBlockHeight: web3.js calls it expired, and so does the chain
    expect((await call(node, 'isBlockhashValid', [latest.blockhash])).result.value).toBe(false);
    expect((await sendWire(node, late)).error).toMatchObject({ code: -32002, data: { err: 'BlockhashNotFound' } });
    expect((await sendWire(node, lateUnchecked, true)).error).toMatchObject({ code: -32002, data: { err: 'BlockhashNotFound' } });
    node.close();
  });

  it('restarts past the lastValidBlockHeight of every blockhash handed out before', async () => {
    const dir = dirs.make();
    let node = openNode(dir);
    await node.airdrop(Keypair.generate().publicKey.toBase58(), 1_000_000_000n);
    for (let i = 0; i < 30; i++) node.advanceSlot(); // a slot mark, then slots the journal does not know of
    const before = node.latestBlockhash();
    node.close();
    node = openNode(dir);
    expect((await call(node, 'getBlockHeight')).result).toBeGreaterThan(before.lastValidBlockHeight);
    expect(node.isBlockhashValid(before.blockhash)).toBe(false);
    node.close();
  });
});
