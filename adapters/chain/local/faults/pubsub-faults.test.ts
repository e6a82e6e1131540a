import { Keypair } from '@solana/web3.js';
import WebSocket from 'ws';
import { afterAll, describe, expect, it } from 'vitest';
import { FaultChains, fund } from '../../../../test/support/fault-chain.ts';
import { quietLog } from '../../../../test/support/quiet-log.ts';
import { WsPubSub } from '../../pubsub.ts';
import { disturbPubSub } from './pubsub-faults.ts';
import { zeroCounters } from './counters.ts';
import { setTimeout as sleep } from 'node:timers/promises';

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
      await sleep(100);
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(chain.faults?.counters().cuts).toBeGreaterThanOrEqual(3);
    pubsub.close();
  });
});

/** A raw socket with one account subscription: every message it got, and whether it closed. */
async function rawListener(url: string, account: string): Promise<{ messages: string[]; closed: () => boolean; close: () => void }> {
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const messages: string[] = [];
  let closed = false;
  ws.on('message', (m) => messages.push(String(m)));
  ws.on('close', () => (closed = true));
  ws.on('error', () => undefined);
  ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'accountSubscribe', params: [account, { encoding: 'base64' }] }));
  await expect.poll(() => messages.length, { timeout: 2_000, interval: 10 }).toBe(1); // the subscription id
  return { messages, closed: () => closed, close: () => ws.close() };
}

describe('pubsub-silent-ms', () => {
  it('leaves every open socket open and sends nothing more on it: no notification, no answer', async () => {
    const chain = await chains.start('pubsub-silent-ms=300');
    const wallet = Keypair.generate();
    const raw = await rawListener(chain.wsUrl, wallet.publicKey.toBase58());
    await expect.poll(() => chain.faults?.counters().silenced ?? 0, { timeout: 2_000, interval: 20 }).toBeGreaterThanOrEqual(1);
    await fund(chain, wallet, 1);
    await sleep(300);
    expect(raw.messages).toHaveLength(1); // only the subscription's id, from before the silence
    expect(raw.closed()).toBe(false);
    raw.close();
  });

  it('a pinging client notices a silent socket within its ping deadline, reconnects, re-syncs and is notified again', async () => {
    const chain = await chains.start('pubsub-silent-ms=1500');
    const wallet = Keypair.generate();
    const pubsub = new WsPubSub(chain.wsUrl, quietLog, { pingMs: 100, maxMissedPongs: 2 });
    const resyncs: number[] = [];
    pubsub.onResync(() => resyncs.push(performance.now()));
    const seen: number[] = [];
    await pubsub.subscribe('accountSubscribe', [wallet.publicKey.toBase58(), { encoding: 'base64', commitment: 'confirmed' }], () => seen.push(1));
    const before = chain.faults!.counters().silenced;
    await expect.poll(() => chain.faults!.counters().silenced, { timeout: 3_000, interval: 10 }).toBeGreaterThan(before);
    const silencedAt = performance.now();
    // noticed within (maxMissedPongs + 2) pings, plus a reconnect and the renewal
    await expect.poll(() => resyncs.length, { timeout: 2_000, interval: 10 }).toBeGreaterThanOrEqual(1);
    expect(resyncs[0]! - silencedAt).toBeLessThan(4 * 100 + 500);
    // between two silences the renewed subscription is notified
    for (let i = 0; i < 10 && seen.length === 0; i++) {
      await fund(chain, wallet, 1);
      await sleep(100);
    }
    expect(seen.length).toBeGreaterThan(0);
    pubsub.close();
  });

  it('a quiet socket that answers its pings is kept: no reconnect while the server is there', async () => {
    const chain = await chains.start('pubsub-cut-ms=0,drop=0.01');
    const pubsub = new WsPubSub(chain.wsUrl, quietLog, { pingMs: 50, maxMissedPongs: 1 });
    let resyncs = 0;
    pubsub.onResync(() => resyncs++);
    await pubsub.subscribe('accountSubscribe', [Keypair.generate().publicKey.toBase58(), { encoding: 'base64' }], () => undefined);
    await sleep(1_000); // twenty pings, each answered
    expect(resyncs).toBe(0);
    expect(pubsub.status()).toBe('open');
    pubsub.close();
  });
});

describe('disturbPubSub', () => {
  it('cuts and silences on their own periods and counts what it touched; off when both are 0', async () => {
    const counters = zeroCounters();
    const calls: string[] = [];
    const stop = disturbPubSub(
      { pubsubCutMs: 60, pubsubSilentMs: 90 },
      { cutAll: () => (calls.push('cut'), 2), silenceAll: () => (calls.push('silence'), 3) },
      counters,
    );
    await sleep(200);
    stop();
    expect(calls.filter((c) => c === 'cut').length).toBeGreaterThanOrEqual(2);
    expect(calls).toContain('silence');
    expect(counters.cuts).toBe(2 * calls.filter((c) => c === 'cut').length);
    expect(counters.silenced).toBe(3 * calls.filter((c) => c === 'silence').length);
    const none = disturbPubSub({ pubsubCutMs: 0, pubsubSilentMs: 0 }, { cutAll: () => 1, silenceAll: () => 1 }, counters);
    await sleep(100);
    none();
    expect(counters.cuts + counters.silenced).toBe(2 * calls.filter((c) => c === 'cut').length + 3 * calls.filter((c) => c === 'silence').length);
  });
});
