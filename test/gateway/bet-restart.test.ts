/**
 * Restarts in the middle of a bet series: the runtime is stopped as a crash would stop it
 * (pending effects abandoned) and a fresh one is booted from the same snapshot store, on
 * the in-memory store and on real Redis. The chain must finish with exactly one `bet_closed`,
 * replay counts that continue, and close_bet run at most once per bet.
 */
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { createMemorySnapshotStore } from '../../adapters/store/snapshot/memory.ts';
import type { SnapshotStore } from '../../adapters/store/snapshot/port.ts';
import { createRedisSnapshotStore } from '../../adapters/store/snapshot/redis.ts';
import type { BetEmittedEvent } from '../../machines/bet-events.ts';
import type { BetInput } from '../../machines/bet-types.ts';
import { LiveBets } from '../../runtime/gateway/bets/live-bets.ts';
import { FakeChain } from './support/fake-chain.ts';
import { quietLog } from '../support/quiet-log.ts';
import { recordInto } from '../support/published.ts';

const BETTOR = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const T0 = 1_800_000_000;
const redis = new Redis(inject('redisUrl'), { lazyConnect: false });
const prefix = `test:bet-restart:${process.pid}:${Date.now()}:`;

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
});

class World {
  readonly chain = new FakeChain();
  readonly clock = new SimulatedClock();
  readonly published: BetEmittedEvent[] = [];
  runtime!: LiveBets;

  constructor(readonly store: SnapshotStore<BetEmittedEvent>) {}

  async boot(): Promise<void> {
    this.runtime = await LiveBets.boot({
      store: this.store,
      effects: this.chain.effects,
      publish: recordInto(this.published),
      clock: this.clock,
      log: quietLog,
      retry: { baseMs: 50, maxMs: 200 },
    });
    await this.flush();
  }

  async flush(): Promise<void> {
    for (let i = 0; i < 3; i++) {
      await nextMacrotask();
      await this.runtime.settled();
    }
  }

  /** Places bet `id` on the fake chain and starts its chain in the runtime. */
  async open(id: bigint, profileB: boolean, maxReplays = 3): Promise<BetInput> {
    const bet = this.chain.place({ id, bettor: BETTOR, seq: 0n, side: 'UP', amount: 100_000_000n, entryPrice: 15_000_000_000n, expireTime: T0 });
    const input: BetInput = {
      id: String(id),
      bettor: BETTOR,
      seq: '0',
      side: 'UP',
      amountUnits: String(bet.amount),
      entryPrice: String(bet.entryPrice),
      expireTime: T0,
      replayTies: profileB,
      maxReplays,
    };
    this.runtime.open(input);
    await this.flush();
    return input;
  }

  async tickAt(unixSeconds: number): Promise<void> {
    this.runtime.tick(unixSeconds * 1000);
    await this.flush();
  }

  async crashAndReboot(): Promise<void> {
    await this.runtime.stop();
    await this.boot();
  }

  of(type: BetEmittedEvent['type']): BetEmittedEvent[] {
    return this.published.filter((e) => e.type === type);
  }
}

const stores: Array<[string, () => SnapshotStore<BetEmittedEvent>]> = [
  ['memory', () => createMemorySnapshotStore<BetEmittedEvent>()],
  ['redis', () => createRedisSnapshotStore<BetEmittedEvent>(redis, { kind: 'bet', prefix: `${prefix}${Math.random().toString(36).slice(2)}:` })],
];

describe.each(stores)('bet series across restarts (%s store)', (_, makeStore) => {
  it('after 2 replays, crashed while pricing: the chain resumes, the 3rd replay has replayCount 3, one bet_closed', async () => {
    const w = new World(makeStore());
    await w.boot();
    await w.open(1n, true, 3);
    await w.tickAt(T0); // tie -> replay 1 (bet 100)
    await w.tickAt(T0 + 15); // tie -> replay 2 (bet 101)
    expect(w.of('bet_replay').map((e) => (e.type === 'bet_replay' ? [e.id, e.prevId, e.replayCount] : []))).toEqual([
      ['100', '1', 1],
      ['101', '100', 2],
    ]);
    w.chain.inject('priceExit', 'hang');
    await w.tickAt(T0 + 30); // bet 101 starts settling, pricing never answers
    const saved = (await w.store.load('1')) as { value: unknown; context: { replayCount: number; id: string } };
    expect(saved.value).toEqual({ settling: 'pricing' });
    expect(saved.context).toMatchObject({ replayCount: 2, id: '101' });

    await w.crashAndReboot();
    expect(w.runtime.seriesIds()).toEqual(['1']);
    // the rehydrated actor re-ran pricing, replayed (3rd), and the 4th bet waits for its expiry
    expect(w.of('bet_replay').at(-1)).toMatchObject({ id: '102', prevId: '101', replayCount: 3, expireTime: T0 + 45 });
    expect(w.of('bet_closed')).toEqual([]);
    await w.tickAt(T0 + 45); // tie again, but the cap is reached: plain close, refunded
    expect(w.of('bet_closed')).toEqual([{ type: 'bet_closed', id: '102', bettor: BETTOR, exitPrice: 15_000_001_000, status: 3, statusName: 'refunded' }]);
    expect(w.published.map((e) => e.type)).toEqual(['bet_open', 'bet_replay', 'bet_replay', 'bet_replay', 'bet_closed']);
    for (const id of [1n, 100n, 101n, 102n]) expect(w.chain.closesOf(id)).toBe(1);
    expect(w.chain.effectCalls.filter((c) => c.effect === 'priceExit' && c.betId === 101n)).toHaveLength(2);
    expect(await w.store.isLive('1')).toBe(false);

    await w.crashAndReboot(); // a finished chain is not rehydrated and says nothing more
    expect(w.runtime.seriesIds()).toEqual([]);
    expect(w.published).toHaveLength(5);
  });

  it('crashed after close_bet landed but before its answer: one close, one bet_closed, chain exit price', async () => {
    const w = new World(makeStore());
    await w.boot();
    await w.open(7n, false);
    w.chain.exitFor = () => ({ kind: 'price', value: 15_000_000_900n });
    w.chain.inject('closeOnChain', 'hang_after_tx');
    await w.tickAt(T0);
    expect(w.chain.closesOf(7n)).toBe(1);
    expect(w.of('bet_closed')).toEqual([]);
    expect(((await w.store.load('7')) as { value: unknown }).value).toEqual({ settling: 'closing' });

    await w.crashAndReboot();
    expect(w.of('bet_closed')).toEqual([{ type: 'bet_closed', id: '7', bettor: BETTOR, exitPrice: 15_000_000_900, status: 1, statusName: 'payout_done' }]);
    expect(w.chain.closesOf(7n)).toBe(1);
    expect(w.chain.effectCalls.filter((c) => c.effect === 'closeOnChain')).toHaveLength(2);
  });

  it('crashed after close+replace landed but before its answer: the replacement is adopted, one bet_replay', async () => {
    const w = new World(makeStore());
    await w.boot();
    await w.open(9n, true, 2);
    w.chain.inject('closeAndReplace', 'hang_after_tx');
    await w.tickAt(T0);
    expect(w.of('bet_replay')).toEqual([]);

    await w.crashAndReboot();
    expect(w.of('bet_replay')).toEqual([
      {
        type: 'bet_replay',
        id: '100',
        prevId: '9',
        bettor: BETTOR,
        side: 'UP',
        amountUnits: '100000000',
        entryPrice: 15_000_001_000,
        expireTime: T0 + 15,
        replayCount: 1,
      },
    ]);
    expect(w.chain.closesOf(9n)).toBe(1);
    expect([...w.chain.bets.keys()]).toEqual([9n, 100n]); // no second replacement was placed
    w.chain.exitFor = (bet) => ({ kind: 'price', value: bet.entryPrice - 5n });
    await w.tickAt(T0 + 15);
    expect(w.of('bet_closed')).toEqual([{ type: 'bet_closed', id: '100', bettor: BETTOR, exitPrice: 15_000_000_995, status: 2, statusName: 'house_won' }]);
  });
});
