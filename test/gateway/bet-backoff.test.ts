/**
 * Retries of failed settlement effects: delays double from the policy's base up to its cap
 * (simulated clock, no waiting), and a close that landed before its failure is never made twice.
 */
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { createMemorySnapshotStore } from '../../adapters/store/snapshot/memory.ts';
import type { BetEmittedEvent } from '../../machines/bet-events.ts';
import { LiveBets } from '../../runtime/gateway/bets/live-bets.ts';
import type { BetEffects } from '../../runtime/gateway/bets/effects.ts';
import { FakeChain } from './support/fake-chain.ts';
import { quietLog } from '../support/quiet-log.ts';
import { recordInto } from '../support/published.ts';

const BETTOR = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const T0 = 1_800_000_000;

async function setup(profileB = false) {
  const chain = new FakeChain();
  const clock = new SimulatedClock();
  const published: BetEmittedEvent[] = [];
  const runtime = await LiveBets.boot({
    store: createMemorySnapshotStore<BetEmittedEvent>(),
    effects: chain.effects,
    publish: recordInto(published),
    clock,
    retry: { baseMs: 100, maxMs: 400 },
    log: quietLog,
  });
  const flush = async () => {
    for (let i = 0; i < 3; i++) {
      await nextMacrotask();
      await runtime.settled();
    }
  };
  chain.place({ id: 5n, bettor: BETTOR, seq: 0n, side: 'DOWN', amount: 100_000_000n, entryPrice: 15_000_000_000n, expireTime: T0 });
  runtime.open({
    id: '5',
    bettor: BETTOR,
    seq: '0',
    side: 'DOWN',
    amountUnits: '100000000',
    entryPrice: '15000000000',
    expireTime: T0,
    replayTies: profileB,
    maxReplays: 2,
  });
  await flush();
  const calls = (effect: keyof BetEffects) => chain.effectCalls.filter((c) => c.effect === effect).length;
  /** Advances the clock 1 ms at a time until `effect` is called again; returns the waited time. */
  const waitForRetry = async (effect: keyof BetEffects): Promise<number> => {
    const before = calls(effect);
    for (let waited = 1; waited <= 10_000; waited++) {
      clock.increment(1);
      await flush();
      if (calls(effect) > before) return waited;
    }
    throw new Error(`${effect} was not retried within 10 s`);
  };
  return { chain, clock, published, runtime, flush, calls, waitForRetry };
}

describe('bet settlement retries', () => {
  it('retries a failing close after 100, 200, 400, 400 ms and closes once', async () => {
    const w = await setup();
    w.chain.exitFor = () => ({ kind: 'price', value: 14_999_999_000n });
    for (let i = 0; i < 4; i++) w.chain.inject('closeOnChain', 'fail');
    w.runtime.tick(T0 * 1000);
    await w.flush();
    expect(w.calls('closeOnChain')).toBe(1);
    const delays: number[] = [];
    for (let i = 0; i < 4; i++) delays.push(await w.waitForRetry('closeOnChain'));
    expect(delays).toEqual([100, 200, 400, 400]);
    expect(w.chain.closesOf(5n)).toBe(1);
    expect(w.published.filter((e) => e.type === 'bet_closed')).toEqual([
      { type: 'bet_closed', id: '5', bettor: BETTOR, exitPrice: 14_999_999_000, status: 1, statusName: 'payout_done' },
    ]);
    expect(w.runtime.seriesIds()).toEqual([]);
  });

  it('records the failure in the snapshot while it waits (for operators)', async () => {
    const w = await setup();
    w.chain.inject('priceExit', 'fail');
    w.runtime.tick(T0 * 1000);
    await w.flush();
    expect((await w.runtime.snapshotOf('5'))?.value).toEqual({ settling: 'pricingBackoff' });
    expect((await w.runtime.snapshotOf('5'))?.context).toMatchObject({ attempt: 1, lastError: 'price history unavailable' });
    expect(await w.waitForRetry('priceExit')).toBe(100);
  });

  it('a close that landed and then reported failure is retried as already_closed, not closed again', async () => {
    const w = await setup();
    w.chain.exitFor = () => ({ kind: 'price', value: 15_000_000_001n });
    w.chain.inject('closeOnChain', 'fail_after_tx');
    w.runtime.tick(T0 * 1000);
    await w.flush();
    expect(w.chain.closesOf(5n)).toBe(1);
    expect(w.published.filter((e) => e.type === 'bet_closed')).toEqual([]);
    expect(await w.waitForRetry('closeOnChain')).toBe(100);
    expect(w.chain.closesOf(5n)).toBe(1);
    expect(w.published.filter((e) => e.type === 'bet_closed')).toEqual([
      { type: 'bet_closed', id: '5', bettor: BETTOR, exitPrice: 15_000_000_001, status: 2, statusName: 'house_won' },
    ]);
  });

  it('a close+replace that landed and then failed adopts its replacement on retry (Profile B)', async () => {
    const w = await setup(true);
    w.chain.inject('closeAndReplace', 'fail_after_tx');
    w.runtime.tick(T0 * 1000);
    await w.flush();
    expect(await w.waitForRetry('closeAndReplace')).toBe(100);
    expect([...w.chain.bets.keys()]).toEqual([5n, 100n]);
    expect(w.published.filter((e) => e.type === 'bet_replay')).toMatchObject([{ id: '100', prevId: '5', replayCount: 1 }]);
    expect(w.chain.closesOf(5n)).toBe(1);
  });
});
