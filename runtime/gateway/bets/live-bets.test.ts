import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { MemorySnapshotStore } from '../../../adapters/store/snapshot/memory.ts';
import type { CommitResult, SnapshotCommit } from '../../../adapters/store/snapshot/port.ts';
import type { BetEmittedEvent } from '../../../machines/bet-events.ts';
import type { BetInput } from '../../../machines/bet-types.ts';
import { FakeChain } from '../../../test/gateway/support/fake-chain.ts';
import { LiveBets } from './live-bets.ts';
import { quietLog } from '../../../test/support/quiet-log.ts';
import { recordInto } from '../../../test/support/published.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const BETTOR = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const T0 = 1_800_000_000;
const input: BetInput = { id: '11', bettor: BETTOR, seq: '0', side: 'UP', amountUnits: '100000000', entryPrice: '15000000000', expireTime: T0 };

/** A memory store that counts commits and can hold them until released. */
class GatedStore extends MemorySnapshotStore<BetEmittedEvent> {
  saves = 0;
  loads = 0;
  /** reads of a snapshot that fail before they answer */
  failLoads = 0;
  override async load(id: string): Promise<unknown> {
    this.loads += 1;
    if (this.failLoads > 0) {
      this.failLoads -= 1;
      throw new Error('store unreachable');
    }
    return super.load(id);
  }
  private gate: Promise<void> = Promise.resolve();
  private release: () => void = () => undefined;
  hold(): void {
    this.gate = new Promise((r) => (this.release = r));
  }
  open(): void {
    this.release();
  }
  /** commits that fail before they answer */
  failCommits = 0;
  override async commit(id: string, change: SnapshotCommit<BetEmittedEvent>): Promise<CommitResult<BetEmittedEvent>> {
    this.saves += 1;
    await this.gate;
    if (this.failCommits > 0) {
      this.failCommits -= 1;
      throw new Error('store unreachable');
    }
    return super.commit(id, change);
  }
}

async function world(store = new GatedStore(), mayCommit?: () => boolean, restartBackoff?: { baseMs: number; maxMs: number }) {
  const chain = new FakeChain();
  chain.place({ id: 11n, bettor: BETTOR, seq: 0n, side: 'UP', amount: 100_000_000n, entryPrice: 15_000_000_000n, expireTime: T0 });
  chain.exitFor = () => ({ kind: 'price', value: 15_000_000_100n });
  const clock = new SimulatedClock();
  const published: BetEmittedEvent[] = [];
  const runtime = await LiveBets.boot({
    store,
    effects: chain.effects,
    publish: recordInto(published),
    clock,
    retry: { baseMs: 10, maxMs: 40 },
    commitRetry: { baseMs: 10, maxMs: 40 },
    log: quietLog,
    ...(mayCommit ? { mayCommit } : {}),
    ...(restartBackoff ? { restartBackoff } : {}),
  });
  const flush = async () => {
    for (let i = 0; i < 3; i++) {
      await nextMacrotask();
      await runtime.settled();
    }
  };
  return { chain, clock, published, runtime, store, flush };
}

describe('bet runtime', () => {
  it('the settlement clock (200 ms here) drives an expired bet to its close', async () => {
    const w = await world();
    w.clock.set(T0 * 1000 - 500);
    w.runtime.open(input);
    w.runtime.startClock(200, () => w.clock.now());
    for (let i = 0; i < 2; i++) {
      w.clock.increment(200);
      await w.flush();
    }
    expect(w.published.map((e) => e.type)).toEqual(['bet_open']); // 100 ms before expiry
    w.clock.increment(200);
    await w.flush();
    expect(w.published.at(-1)).toEqual({ type: 'bet_closed', id: '11', bettor: BETTOR, exitPrice: 15_000_000_100, status: 1, statusName: 'payout_done' });
    await w.runtime.stop();
  });

  it('publishes an event only after the snapshot of its transition is saved', async () => {
    const w = await world();
    w.store.hold();
    w.runtime.open(input);
    await nextMacrotask();
    expect(w.published).toEqual([]);
    w.store.open();
    await w.flush();
    expect(w.published.map((e) => e.type)).toEqual(['bet_open']);
    expect(await w.store.isLive('11')).toBe(true);
  });

  it('a commit waits while the lease is not held, then lands with what happened meanwhile; none is written after stop', async () => {
    let held = false;
    const w = await world(new GatedStore(), () => held);
    w.clock.set(T0 * 1000 - 500);
    w.runtime.open(input);
    w.runtime.startClock(200, () => w.clock.now());
    await sleep(150);
    expect(w.store.saves).toBe(0);
    expect(w.published).toEqual([]);
    held = true;
    await w.flush();
    expect(w.published.map((e) => e.type)).toEqual(['bet_open']);
    expect(w.store.saves).toBe(1);

    held = false;
    for (let i = 0; i < 3; i++) {
      w.clock.increment(400);
      await nextMacrotask();
    }
    await sleep(150);
    expect(w.published.map((e) => e.type)).toEqual(['bet_open']); // the close waits for the lease
    await w.runtime.stop(100);
    held = true;
    await sleep(150);
    expect(w.store.saves).toBe(1);
    expect(w.published.map((e) => e.type)).toEqual(['bet_open']);
  });

  it('a failed commit is retried only while the lease is held: a leader that lost it meanwhile writes nothing more', async () => {
    let held = true;
    const store = new GatedStore();
    store.failCommits = 1;
    const w = await world(store, () => held);
    store.hold();
    w.runtime.open(input);
    await nextMacrotask();
    expect(store.saves).toBe(1);
    held = false; // e.g. paused past the lease while the first attempt was in flight
    store.open();
    await sleep(200); // past every retry delay (10-40 ms)
    expect(store.saves).toBe(1);
    expect(w.published).toEqual([]);
    held = true;
    await sleep(150);
    await w.flush();
    expect(store.saves).toBe(2);
    expect(w.published.map((e) => e.type)).toEqual(['bet_open']);
    await w.runtime.stop(100);
  });

  it('does not save again for a tick that changed nothing', async () => {
    const w = await world();
    w.runtime.open(input);
    await w.flush();
    const before = w.store.saves;
    for (let i = 0; i < 5; i++) w.runtime.tick(T0 * 1000 - 1000 + i);
    await w.flush();
    expect(w.store.saves).toBe(before);
  });

  it('refuses a second live actor for the same chain', async () => {
    const w = await world();
    w.runtime.open(input);
    expect(() => w.runtime.open(input)).toThrow(/already live/);
  });

  it('at boot, leaves a damaged snapshot alone and retires a snapshot that is not active', async () => {
    const store = new GatedStore();
    await store.commit('1', { snapshot: { hello: 'world' }, final: false, events: [], rev: 1 });
    await store.commit('2', { snapshot: { status: 'error', value: 'x', context: { seriesId: '2', id: '2' } }, final: false, events: [], rev: 1 });
    const w = await world(store);
    expect(w.runtime.seriesIds()).toEqual([]);
    expect(await store.isLive('1')).toBe(true);
    expect(await store.isLive('2')).toBe(false);
  });

  it('a bet waiting for its expiry keeps no snapshot in memory: its summary answers without the store; the tick of its expiry reads the snapshot back and settles it', async () => {
    const w = await world();
    w.clock.set(T0 * 1000 - 60_000);
    w.runtime.open(input);
    await w.flush();
    expect(w.runtime.stats()).toMatchObject({ live: 1, dormant: 1 });
    expect(w.runtime.summaryOf('11')).toEqual({ value: { open: 'placed' }, betId: '11', bettor: BETTOR, expireTime: T0 });
    w.runtime.tick(T0 * 1000 - 1);
    await w.flush();
    expect(w.store.loads).toBe(0);
    expect((await w.runtime.snapshotOf('11'))?.context).toMatchObject({ id: '11', bettor: BETTOR, placeTx: null });
    expect(w.store.loads).toBe(1); // a dormant series' full snapshot is the store's
    w.runtime.tick(T0 * 1000);
    await w.flush();
    expect(w.store.loads).toBe(2);
    expect(w.published.at(-1)).toMatchObject({ type: 'bet_closed', id: '11', status: 1 });
    expect(w.runtime.seriesIds()).toEqual([]);
  });

  it('a dormant series whose snapshot cannot be read at its expiry is restarted until the read answers, then settles', async () => {
    const w = await world(new GatedStore(), undefined, { baseMs: 10, maxMs: 10 });
    w.runtime.open(input);
    await w.flush();
    expect(w.runtime.stats().dormant).toBe(1);
    w.store.failLoads = 2;
    w.runtime.tick(T0 * 1000);
    for (let i = 0; i < 20 && w.published.at(-1)?.type !== 'bet_closed'; i++) {
      await sleep(20);
      w.runtime.tick(T0 * 1000 + i);
      await w.flush();
    }
    expect(w.store.loads).toBe(3);
    expect(w.runtime.stats()).toMatchObject({ actorFailures: 2, actorRestarts: 2 });
    expect(w.published.at(-1)).toMatchObject({ type: 'bet_closed', id: '11', status: 1 });
  });
});
