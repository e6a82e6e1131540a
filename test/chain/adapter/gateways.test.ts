/**
 * The chain adapter among other writers: a placement whose answer is lost, two gateways
 * placing in parallel, and changes made by someone else's transactions seen through the mirror.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { RpcChain } from '../../../adapters/chain/rpc-chain/index.ts';
import { fundedBettor, type TestChain } from '../support.ts';
import { signed, onLocalChain } from './fixtures.ts';

describe('RpcChain on the local chain', () => {
  let t: TestChain;
  let chain: RpcChain;
  onLocalChain((started, adapter) => {
    t = started;
    chain = adapter;
  });

  it('a placement whose answer is lost on the way back is found by its signature', async () => {
    let lost = 0;
    // forwards every request to the chain, but cuts the connection instead of returning a sendTransaction answer
    const proxy = createServer((req: IncomingMessage, res: ServerResponse) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        fetch(t.chain.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
          .then(async (answer) => {
            const text = await answer.text();
            if (body.includes('"sendTransaction"')) {
              lost++;
              res.socket?.destroy();
            } else res.writeHead(200, { 'content-type': 'application/json' }).end(text);
          })
          .catch(() => res.socket?.destroy());
      });
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
    try {
      const lossy = t.adapter({ url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` });
      const bettor = await fundedBettor(chain);
      const placed = await lossy.placeBet(signed(bettor));
      expect(lost).toBeGreaterThanOrEqual(1); // a reset on a reused connection is sent once more, and cut again
      expect(await chain.readBet(placed.bet)).toMatchObject({ bettor: bettor.publicKey.toBase58(), status: 0 });
    } finally {
      proxy.closeAllConnections();
      await new Promise((r) => proxy.close(r));
    }
  });

  it("placements from two gateways for different bettors run in parallel: distinct ids, each at its own bettor's seq", async () => {
    const other = t.adapter();
    const bettors = await Promise.all(Array.from({ length: 8 }, () => fundedBettor(chain)));
    const placed = await Promise.all(bettors.map((b, i) => (i % 2 ? other : chain).placeBet(signed(b))));
    expect(new Set(placed.map((p) => p.bet.id)).size).toBe(8);
    for (const [i, p] of placed.entries()) expect(p.bet).toMatchObject({ bettor: bettors[i]!.publicKey.toBase58(), seq: 0n });
  });

  it("sees a change made by someone else's transaction: the other gateway's bet and the admin's pause", async () => {
    const other = t.adapter();
    const bettor = await fundedBettor(chain);
    const placed = await other.placeBet(signed(bettor));
    await expect.poll(async () => (await chain.readBet(placed.bet))?.id, { timeout: 3_000 }).toBe(placed.bet.id);
    await other.setPaused(true);
    await expect.poll(async () => (await chain.readConfig())!.paused, { timeout: 3_000 }).toBe(true);
    await other.setPaused(false);
    await expect.poll(async () => (await chain.readConfig())!.paused, { timeout: 3_000 }).toBe(false);
  });
});
