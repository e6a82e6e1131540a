/**
 * JS heap per live bet (issue goal: <= 2 KB). BENCH_HEAP_BETS (10000) bets are opened in the bet
 * runtime, each waiting for an expiry an hour ahead, with a store that keeps nothing (the cost
 * measured is the runtime's, not the store's): once committed, a waiting chain gives its actor up
 * and keeps only its snapshot text. Baseline in the same run: the same number of resident XState
 * actors of the bet machine, started and kept, as the runtime held them before.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createActor, type AnyActorRef } from 'xstate';
import type { CommitResult, SnapshotCommit, SnapshotStore } from '../adapters/store/snapshot/port.ts';
import type { BetEmittedEvent } from '../machines/bet-events.ts';
import { betMachine } from '../machines/bet.ts';
import type { BetInput } from '../machines/bet-types.ts';
import { LiveBets } from '../runtime/gateway/bets/live-bets.ts';
import type { BetEffects } from '../runtime/gateway/bets/effects.ts';
import { log } from '../kernel/log.ts';
import { report } from './support/measure.ts';

const N = Number(process.env.BENCH_HEAP_BETS ?? 10_000);
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Heap in use after two full collections. */
function heapUsed(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** A store that assigns seqs and keeps nothing. */
function discardingStore(): SnapshotStore<BetEmittedEvent> {
  let seq = 0;
  return {
    async commit(_id: string, change: SnapshotCommit<BetEmittedEvent>): Promise<CommitResult<BetEmittedEvent>> {
      return { applied: true, events: change.events.map((e) => ({ ...e, seq: ++seq })) };
    },
    load: async () => null,
    loadLive: async () => [],
    isLive: async () => false,
    close: async () => undefined,
  };
}

const never: BetEffects = {
  priceExit: async () => ({ kind: 'wait' }),
  closeOnChain: async () => Promise.reject(new Error('not in this benchmark')),
  closeAndReplace: async () => Promise.reject(new Error('not in this benchmark')),
};

const expireTime = Math.floor(Date.now() / 1000) + 3600;
const input = (i: number): BetInput => ({
  id: String(i + 1),
  bettor: `Bettor${String(i).padStart(38, '1')}`,
  seq: '0',
  side: i % 2 ? 'UP' : 'DOWN',
  amountUnits: '100000000',
  entryPrice: '15000000000',
  expireTime,
  replayTies: false,
  maxReplays: 10,
});

// baseline: resident actors
const before = heapUsed();
const resident: AnyActorRef[] = [];
for (let i = 0; i < N; i++) resident.push(createActor(betMachine, { input: input(i) }).start());
const residentPerBet = (heapUsed() - before) / N;
for (const a of resident) a.stop();
resident.length = 0;

// the runtime: chains waiting for their expiry
const base = heapUsed();
const bets = await LiveBets.boot({ store: discardingStore(), effects: never, publish: () => undefined, log: log.child({}, { level: 'warn' }) });
for (let i = 0; i < N; i++) bets.open(input(i));
await bets.settled();
const perBet = (heapUsed() - base) / N;
const stats = bets.stats();
await bets.stop();

report(`heap per live bet, ${N} bets waiting for their expiry`, [
  {
    measure: 'JS heap per live bet',
    value: perBet / 1024,
    unit: 'KB',
    baseline: { name: 'resident XState actor per bet', value: residentPerBet / 1024 },
    goal: '<= 2 KB',
    detail: `${stats.live} live, ${stats.dormant} held as a snapshot only`,
  },
]);
