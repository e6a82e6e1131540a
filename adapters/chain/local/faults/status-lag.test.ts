import { Keypair } from '@solana/web3.js';
import { afterAll, describe, expect, it } from 'vitest';
import { FaultChains, fund, sendWire, statuses, transfer } from '../../../../test/support/fault-chain.ts';
import { quietLog } from '../../../../test/support/quiet-log.ts';
import { WsPubSub } from '../../pubsub.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const chains = new FaultChains();
afterAll(() => chains.removeAll());

const LAG_MS = 300;

describe('status-lag-ms', () => {
  it('answers a landed signature null and holds its notification for the lag; account notifications come at once', async () => {
    const chain = await chains.start(`status-lag-ms=${LAG_MS}`);
    const [payer, to] = [Keypair.generate(), Keypair.generate()];
    await fund(chain, payer);
    const tx = await transfer(chain, payer, to, 1_000_000);
    const pubsub = new WsPubSub(chain.wsUrl, quietLog);
    const at: Record<string, number> = {};
    await pubsub.subscribe('signatureSubscribe', [tx.signature, { commitment: 'confirmed' }], () => (at.signature = performance.now()));
    await pubsub.subscribe(
      'accountSubscribe',
      [to.publicKey.toBase58(), { encoding: 'base64', commitment: 'confirmed' }],
      () => (at.account = performance.now()),
    );

    const sentAt = performance.now();
    expect((await sendWire(chain, tx.wire)).result).toBe(tx.signature); // answered once the transaction landed
    const landedBy = performance.now();
    let shownAt = 0;
    while (shownAt === 0 && performance.now() - sentAt < 5_000) {
      if ((await statuses(chain, [tx.signature]))[0] !== null) shownAt = performance.now();
      else await sleep(10);
    }
    expect(shownAt - landedBy).toBeGreaterThanOrEqual(LAG_MS - 50);
    expect(shownAt - sentAt).toBeLessThan(LAG_MS + 1_000);
    await expect.poll(() => at.signature, { timeout: 5_000 }).toBeDefined();
    expect((at.signature as number) - landedBy).toBeGreaterThanOrEqual(LAG_MS - 50);
    expect((at.account as number) - sentAt).toBeLessThan(LAG_MS - 50); // not held
    expect(chain.faults?.counters()).toMatchObject({ heldStatuses: expect.any(Number), heldNotifications: 1 });
    expect(chain.faults?.counters().heldStatuses).toBeGreaterThan(0);

    // once the lag is over, a status is there at once, and so is a new subscription's notification
    let late = 0;
    await pubsub.subscribe('signatureSubscribe', [tx.signature, { commitment: 'confirmed' }], () => late++);
    await expect.poll(() => late, { timeout: 2_000 }).toBe(1);
    expect((await statuses(chain, [tx.signature]))[0]).toMatchObject({ err: null });
    pubsub.close();
  });
});
