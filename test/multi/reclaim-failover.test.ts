/**
 * Reclaims across leader changes (`GW_RECLAIM_BETS`, on by default: the chain's state grows with
 * bettors, not with bets; docs/architecture.md#reclaiming-settled-bets): nine bettors bet over
 * several 3 s windows on three gateways, and the leader is SIGKILLed (in the other run: SIGSTOPped,
 * then SIGCONTed once another node took its lease) twice, each time right after a bet closed, so
 * closes and reclaims are in flight. After a final fault-free stretch of windows: no gateway logged
 * a reclaim that failed on an account already closed (a reclaim or close sent twice), and every
 * bettor ends with only its latest bet account on chain (every older one reclaimed), read from the
 * chain's `getProgramAccounts`.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { BetAccount, BettorState } from '../../adapters/chain/port.ts';
import type { BettingLoop } from '../support/betting-loop.ts';
import { programAccountsNow, untilNoOpenBet } from '../support/chain-bets.ts';
import { sleep } from '../support/client-request.ts';
import { GatewayCluster, type ClusterNode } from '../support/gateway-cluster.ts';
import { logLines } from '../support/gateway-log.ts';
import { collect } from '../support/ws-collector.ts';

const FAULTS = 2;
/** the reclaimer's failure line (runtime/gateway/settlement/reclaimer.ts) */
const RECLAIM_FAILED = /^reclaim of settled bets failed/;
/** what the program answers for an account that is no longer its own: a bet reclaimed already */
const ALREADY_CLOSED = /owned by the wrong program|InvalidAccountOwner/i;

/** The bet accounts on chain of each bettor other than its latest (seq < betCount - 1), one line each. */
function olderThanLatest(addresses: readonly string[], bets: readonly BetAccount[], bettors: readonly BettorState[]): string[] {
  return addresses.flatMap((address) => {
    const state = bettors.find((s) => s.bettor === address);
    const latest = state ? state.betCount - 1n : -1n;
    return bets
      .filter((b) => b.bettor === address && b.seq !== latest)
      .map((b) => `bettor ${address}: bet ${b.id} (seq ${b.seq}, status ${b.status}) is still on chain; its latest is seq ${latest}`);
  });
}

describe.each([['SIGKILL'], ['SIGSTOP then SIGCONT']])('leader changes (%s) while reclaims are in flight', (fault) => {
  let cluster: GatewayCluster | undefined;
  let bettors: BettingLoop | undefined;
  afterAll(async () => {
    await bettors?.stop();
    await cluster?.stop();
  });

  it('logs no reclaim failing on a closed account, and leaves each bettor only its latest bet on chain', async () => {
    cluster = await GatewayCluster.start(3);
    const c = cluster;
    await c.leader();
    const addresses = await c.walletsOnEveryNode(3);
    // bets go round the nodes that are up; a faulted node gets none until it is back
    const down = new Set<ClusterNode>();
    bettors = c.bettingLoop(addresses, down);
    bettors.start();
    await sleep(8_000); // two windows: every bettor has settled bets, reclaims run

    const faults: string[] = [];
    for (let f = 0; f < FAULTS; f++) {
      const leader = await c.leader();
      const watcher = await collect(c.nodes.find((n) => n !== leader)!.ws);
      // right after a close: its reclaim sweep and the next closes are on their way
      await watcher.until((m) => m.some((e) => e.type === 'bet_closed'), 20_000);
      watcher.close();
      down.add(leader);
      faults.push(`${leader.id} at ${new Date().toISOString()}`);
      if (fault === 'SIGKILL') {
        await leader.process.kill();
        await c.leader(15_000);
        await leader.process.start();
      } else {
        leader.process.pause();
        // another node leading proves the paused one's lease passed
        await c.leader(15_000);
        await sleep(1_000);
        leader.process.resume();
      }
      down.delete(leader);
      await sleep(7_000); // two windows under the new leader
    }
    await sleep(8_000); // the final fault-free windows
    await bettors.stop();
    await untilNoOpenBet(c.chainUrl, addresses, 30_000);

    // the last closes' reclaims trail them: wait (bounded) until only the latest bets are left
    let left: string[] = [];
    for (const deadline = Date.now() + 20_000; ;) {
      const now = await programAccountsNow(c.chainUrl);
      left = olderThanLatest(addresses, now.bets, now.bettors);
      if (left.length === 0 || Date.now() > deadline) break;
      await sleep(500);
    }
    const failures = c.nodes.flatMap((n) =>
      logLines(n.process.output())
        .filter((l) => RECLAIM_FAILED.test(l.msg))
        .map((l) => `${n.id} ${new Date(l.time).toISOString()}: ${String(l.err)}`),
    );
    const bets = bettors.answers.filter((a) => a.status === 200).length;
    expect(bets, 'bets placed').toBeGreaterThan(addresses.length * 4);
    expect
      .soft(
        failures.filter((f) => ALREADY_CLOSED.test(f)),
        `reclaims that failed on a closed account (all reclaim failures: ${failures.length}; leaders faulted: ${faults.join(', ')})`,
      )
      .toEqual([]);
    expect.soft(left, `bet accounts left on chain besides each bettor's latest (${bets} bets placed)`).toEqual([]);
  }, 300_000);
});
