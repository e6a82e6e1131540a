import { Keypair } from '@solana/web3.js';
import WebSocket from 'ws';
import { afterAll, describe, expect, it } from 'vitest';
import { FaultChains, fund } from '../../../../test/support/fault-chain.ts';
import { quietLog } from '../../../../test/support/quiet-log.ts';
import { WsPubSub } from '../../pubsub.ts';

const chains = new FaultChains();
afterAll(() => chains.removeAll());

/** A raw socket with one account subscription; resolves with how it ended and when. */
async function watchRaw(url: string, account: string): Promise<{ opened: number; ended: Promise<{ code: number; at: number }> }> {
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const opened = performance.now();
  ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'accountSubscribe', params: [account, { encoding: 'base64' }] }));
  const ended = new Promise<{ code: number; at: number }>((resolve) => ws.once('close', (code) => resolve({ code, at: performance.now() })));
  ws.on('error', () => undefined); // the cut shows as 'close' with no close frame
  return { opened, ended };
}

describe('pubsub-cut-ms', () => {
  it('cuts every open socket without a close frame every period; a client that resubscribes is notified again', async () => {
    const chain = await chains.start('pubsub-cut-ms=400');
    const wallet = Keypair.generate();
    const raw = await watchRaw(chain.wsUrl, wallet.publicKey.toBase58());
    const other = await watchRaw(chain.wsUrl, wallet.publicKey.toBase58());
    const [a, b] = await Promise.all([raw.ended, other.ended]);
    expect([a.code, b.code]).toEqual([1006, 1006]); // abnormal closure: no close frame was sent
    expect(a.at - raw.opened).toBeLessThan(1_000);

    const pubsub = new WsPubSub(chain.wsUrl, quietLog);
    const seen: number[] = [];
    let resyncs = 0;
    pubsub.onResync(() => resyncs++);
    await pubsub.subscribe('accountSubscribe', [wallet.publicKey.toBase58(), { encoding: 'base64', commitment: 'confirmed' }], () => seen.push(1));
    await expect.poll(() => resyncs, { timeout: 5_000, interval: 20 }).toBeGreaterThanOrEqual(1); // cut, reconnected, resubscribed
    // a notification between two cuts reaches it on the renewed subscription (one sent during a cut is lost, as on a cluster)
    for (let i = 0; i < 10 && seen.length === 0; i++) {
      if (pubsub.status() === 'open') await fund(chain, wallet, 1);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(chain.faults?.counters().cuts).toBeGreaterThanOrEqual(3);
    pubsub.close();
  });
});
