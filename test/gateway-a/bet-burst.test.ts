/**
 * A herd of bets (docs/decisions.md#placements-are-admitted-not-queued): BURST funded wallets each
 * send one `POST /api/bet` at the same moment, on `npm start`'s default stack (the chain in-process,
 * file stores) and on the chain process with Redis, first on a quiet machine and then with a
 * busy-loop process beside the stack (a noisy neighbour taking a core). Every answer is one a client
 * can act on (200, 409, pending with its transaction, or 503 with Retry-After: nothing sent) and is
 * true of the chain afterwards: no 500 "unreachable" while the chain answers, no bet on chain answered
 * as not sent, every new bet accounted for; with signed prices (`npm start`'s default) and without. The burst is smaller than the benchmark's 2,000 (time);
 * `npm run bench -- gateway-bets` runs the full one and measures its answer times.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { betBurst, burstStack, settled, type BurstResult, type BurstStack } from '../support/bet-burst.ts';

const BURST = 1000;
const ENV = { GW_EXPIRY_SECONDS: '2', SMART_SETTLE_INTERVAL_MS: '200' };

const summary = (r: BurstResult) =>
  `${r.answers.length} answers in ${r.seconds.toFixed(1)} s: ${r.classes.ok} 200, ${r.classes.conflict} 409, ${r.classes.pending} pending (${r.pendingLanded} landed), ` +
  `${r.classes.shed} 503, ${r.classes.other} other; ${r.landed} bets landed; answer p50 ${r.p50.toFixed(0)} ms, p99 ${r.p99.toFixed(0)} ms`;

describe.each([
  // npm start's default: signed prices (its own feed signs the ticks); entry ticks go back at most
  // 8 ticks on chain, so placements further apart landing out of order are signed again at the newest
  ['embedded' as const, 'signed prices (the default)', {}],
  ['chain+redis' as const, 'relayer-attested prices', {}],
  ['chain+redis' as const, 'signed prices', { SIGNED_PRICES: 'on' }],
])('a burst of %s bets at once, %s', (kind, _prices, env) => {
  let stack: BurstStack | undefined;
  afterAll(() => stack?.stop());

  it(`${BURST} bets at once, quiet and beside a busy loop: every answer is one of the four a client can act on, and true of the chain`, async () => {
    stack = await burstStack(kind, { ...ENV, ...env });
    const wallets = await stack.fundedWallets(BURST);
    for (const neighbour of [false, true]) {
      const r = await betBurst(stack, wallets, { neighbour });
      console.info(`${kind}${neighbour ? ', busy loop beside it' : ', quiet'}: ${summary(r)}`);
      expect(r.falseAnswers, summary(r)).toEqual([]);
      expect(r.classes.other, summary(r)).toBe(0);
      expect(r.answers).toHaveLength(BURST);
      // a real burst: the chain took bets, and what it took was answered
      expect(r.landed).toBeGreaterThan(0);
      expect(r.classes.ok + r.pendingLanded).toBe(r.landed);
      await settled(stack.chainUrl, wallets);
    }
  }, 240_000);
});
