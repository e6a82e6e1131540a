/**
 * What the operator CLI tests share: a bettor and a bet input, an unreachable chain URL and the
 * effects of a chain that is down, a bet runtime that waits for an operator's retry, a book feed
 * the test pushes into, and a poll for hooks.
 */
import type { SnapshotStore } from '../../../adapters/store/snapshot/port.ts';
import type { BetEmittedEvent } from '../../../machines/bet-events.ts';
import type { BetInput } from '../../../machines/bet-types.ts';
import { LiveBets } from '../../../runtime/gateway/bets/live-bets.ts';
import type { BetEffects } from '../../../runtime/gateway/bets/effects.ts';
import { quietLog } from '../../support/quiet-log.ts';
import { setTimeout as sleep } from 'node:timers/promises';
export { pushFeed } from '../../support/push-feed.ts';

export const BETTOR = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
export const NO_CHAIN = 'http://127.0.0.1:9'; // nothing listens: the chain view reports it

export const betInput = (id: string, expireTime: number): BetInput => ({
  id,
  bettor: BETTOR,
  seq: id,
  side: 'UP',
  amountUnits: '100000000',
  entryPrice: '15000000000',
  expireTime,
});

/** Resolves once `check()` holds (polling), or fails after `timeoutMs`; for hooks, where expect.poll is not allowed. */
export async function waitUntil(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !check(); await sleep(20)) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
  }
}

/** Effects of a chain that is down: pricing fails every time (counted). */
export function downChain() {
  const calls = { priceExit: 0 };
  const effects: BetEffects = {
    priceExit: async () => {
      calls.priceExit++;
      throw new Error('chain unreachable (test)');
    },
    closeOnChain: async () => Promise.reject(new Error('not in this test')),
    closeAndReplace: async () => Promise.reject(new Error('not in this test')),
  };
  return { calls, effects };
}

/** Bet runtime with a long retry backoff, so a failed chain waits until an operator retries it. */
export async function betRuntime(store: SnapshotStore<BetEmittedEvent>, effects: BetEffects): Promise<LiveBets> {
  return LiveBets.boot({ store, effects, publish: () => undefined, retry: { baseMs: 600_000, maxMs: 600_000 }, log: quietLog });
}
