/**
 * The PubSub client against the real local chain: notifications arrive, an unsubscribed
 * subscription goes quiet, a refused subscription rejects, and a chain restarted under the client
 * (the connection drops) is reconnected to, every subscription renewed and a re-sync announced —
 * also for the in-process variant's contract (same notification shapes).
 */
import { rmSync } from 'node:fs';
import { Keypair, LAMPORTS_PER_SOL } from '@solana/web3.js';
import * as v from 'valibot';
import { afterAll, describe, expect, it } from 'vitest';
import { startLocalChain, type LocalChain } from '../../adapters/chain/local/start.ts';
import { WsPubSub, type PubSub } from '../../adapters/chain/pubsub.ts';
import { HttpTransport, RpcClient } from '../../adapters/chain/rpc-client.ts';
import { log } from '../../kernel/log.ts';
import { freePort } from '../support/servers.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { tempDir } from '../support/temp-dir.ts';

const quiet = log.child({}, { level: 'silent' });
const Notified = v.object({ context: v.object({ slot: v.number() }), value: v.object({ lamports: v.number() }) });
const dataDir = tempDir('pubsub-');
let chain: LocalChain | undefined;
afterAll(async () => {
  await chain?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const airdrop = (c: LocalChain, to: Keypair, sol: number) =>
  new RpcClient(new HttpTransport(c.url)).call('requestAirdrop', [to.publicKey.toBase58(), sol * LAMPORTS_PER_SOL], v.string());

async function exercise(c: LocalChain, pubsub: PubSub): Promise<void> {
  const wallet = Keypair.generate();
  const seen: number[] = [];
  const sub = await pubsub.subscribe('accountSubscribe', [wallet.publicKey.toBase58(), { encoding: 'base64', commitment: 'confirmed' }], (r) =>
    seen.push(v.parse(Notified, r).value.lamports),
  );
  await airdrop(c, wallet, 2);
  await expect.poll(() => seen, { timeout: 5_000 }).toEqual([2 * LAMPORTS_PER_SOL]);
  sub.unsubscribe();
  await airdrop(c, wallet, 1);
  await sleep(300);
  expect(seen).toEqual([2 * LAMPORTS_PER_SOL]);
  await expect(pubsub.subscribe('accountSubscribe', ['not-a-key'], () => undefined)).rejects.toThrow(/refused|Invalid/);
}

describe('chain PubSub', () => {
  it('over the WebSocket: notifies, unsubscribes, refuses bad params, and survives a chain restart with a re-sync', async () => {
    const port = await freePort();
    chain = await startLocalChain({ dataDir, port, init: null, log: quiet });
    const pubsub = new WsPubSub(chain.wsUrl, quiet);
    try {
      await exercise(chain, pubsub);
      const wallet = Keypair.generate();
      const seen: number[] = [];
      await pubsub.subscribe('accountSubscribe', [wallet.publicKey.toBase58(), { encoding: 'base64' }], (r) => seen.push(v.parse(Notified, r).value.lamports));
      let resyncs = 0;
      pubsub.onResync(() => resyncs++);
      await chain.stop();
      await expect.poll(() => pubsub.status(), { timeout: 5_000 }).toBe('connecting');
      chain = await startLocalChain({ dataDir, port, init: null, log: quiet });
      await expect.poll(() => resyncs, { timeout: 10_000 }).toBe(1);
      expect(pubsub.status()).toBe('open');
      await airdrop(chain, wallet, 3);
      await expect.poll(() => seen, { timeout: 5_000 }).toEqual([3 * LAMPORTS_PER_SOL]);
    } finally {
      pubsub.close();
    }
  }, 60_000);

  it('in-process: the same behaviour without a socket', async () => {
    if (!chain) throw new Error('the first test starts the chain');
    const pubsub = chain.pubsub();
    try {
      await exercise(chain, pubsub);
      expect(pubsub.status()).toBe('open');
    } finally {
      pubsub.close();
    }
  });
});
