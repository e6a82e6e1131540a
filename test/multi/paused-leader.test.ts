/**
 * A leader paused (SIGSTOP) past its lease and resumed (SIGCONT) is a leader no longer
 * (docs/architecture.md#the-leader: monotonic validity, a guard before each settlement write):
 * three gateways, six bettors betting through the nodes that are not paused, and three rounds of
 * pausing the current leader for longer than its lease and a bet window, then resuming it.
 *
 * How it is observed, from outside:
 * - `/health` says `leader` for the moment it answers. Requests sent to the paused process wait in
 *   its socket and are answered as soon as it runs again, before any timer of its own could have
 *   told it that its lease is gone; more are sent in a tight loop after SIGCONT. At the same time
 *   the new leader is asked in a loop: it said `leader:true` before the SIGCONT and says it in
 *   every answer after. So any `leader:true` from the old leader, every one of which was made after
 *   SIGCONT, is a moment with two leaders.
 * - The leader's work shows in its log: a close is logged by the leader that committed it (`bet
 *   <id> settled: ...`, with the fence of the lease it runs under), and so are the settler's
 *   take-overs (`bet series rehydrated`, `bet series placed on other gateways taken over`, `open
 *   bet without an actor`) and the bet actors' commits that found their transition stored already
 *   by someone else (`bet commit was already stored`). Any such line of the old leader written
 *   after the new leader logged its election, while the old node is not asked to take bets, is
 *   settlement work done by a node that no longer leads. The bets its actors held expired during
 *   the pause, so it has closes to send. A bet whose request reached the node just before its
 *   pause is committed after it by the node's intake (every node takes bets, leading or not); its
 *   lines say `runtime: intake` and are not leader work.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { BettingLoop } from '../support/betting-loop.ts';
import { request, sleep } from '../support/client-request.ts';
import { eventually } from '../support/eventually.ts';
import { GatewayCluster, type ClusterNode } from '../support/gateway-cluster.ts';
import { logLines } from '../support/gateway-log.ts';

const ROUNDS = 3;
const TTL_MS = 1_500;
/** how long the leader sleeps: past its lease and past a whole 3 s bet window */
const PAUSE_MS = 4_500;
/** how long both nodes are asked after the SIGCONT */
const OBSERVE_MS = 3_000;
/** log lines of the bet actors and the settler at work (runtime/gateway, bin/gateway-app.ts) */
const LEADER_WORK = [
  /^bet \d+ settled/,
  /^tie of bet/,
  /^bet series rehydrated/,
  /^bet series placed on other gateways taken over/,
  /^open bet without an actor/,
  /^bet commit was already stored/,
];

interface Health {
  node: string;
  sentAt: number;
  status: number;
  leader: boolean;
}

async function health(node: ClusterNode, timeoutMs = 5_000): Promise<Health> {
  const sentAt = Date.now();
  const r = await request(node.base, 'GET', '/health', undefined, timeoutMs);
  return { node: node.id, sentAt, status: r.status, leader: r.body?.leader === true };
}

/** `/health` of `node` one after another until `endAt`. */
async function healthsUntil(node: ClusterNode, endAt: number): Promise<Health[]> {
  const out: Health[] = [];
  while (Date.now() < endAt) {
    out.push(await health(node));
    await sleep(5);
  }
  return out;
}

/** The time and fence of the last `elected leader` line of `node`'s log. */
function lastElection(node: ClusterNode): { time: number; fence: number } {
  const line = logLines(node.process.output())
    .filter((l) => l.msg.startsWith('elected leader'))
    .at(-1);
  if (!line) throw new Error(`${node.id} never logged its election`);
  return { time: line.time, fence: Number(line.fence) };
}

describe('a paused leader resumed past its lease', () => {
  let cluster: GatewayCluster | undefined;
  let bettors: BettingLoop | undefined;
  afterAll(async () => {
    await bettors?.stop();
    await cluster?.stop();
  });

  it('never says leader:true while the new leader leads, and does no settlement work once another node was elected', async () => {
    cluster = await GatewayCluster.start(3, { GW_LEASE_TTL_MS: String(TTL_MS) });
    const c = cluster;
    await c.leader();
    const addresses = await c.walletsOnEveryNode(2);
    const paused = new Set<ClusterNode>();
    bettors = c.bettingLoop(addresses, paused);
    bettors.start();
    await sleep(4_000); // bets open on the leader's actors

    const twoLeaders: string[] = [];
    const staleWork: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const old = await c.leader();
      const oldFence = lastElection(old).fence;
      paused.add(old);
      old.process.pause();
      const pausedAt = Date.now();
      // answered only once it runs again
      const waiting = Array.from({ length: 5 }, () => health(old, PAUSE_MS + 20_000));
      const others = c.nodes.filter((n) => n !== old);
      const next = await eventually(
        'another node leading',
        async () => (await Promise.all(others.map((n) => health(n, 2_000)))).find((h) => h.leader) ?? null,
        15_000,
        100,
      );
      const nextNode = others.find((n) => n.id === next.node)!;
      await sleep(Math.max(0, pausedAt + PAUSE_MS - Date.now()));
      const before = await health(nextNode);
      expect(before.leader, `round ${round}: ${nextNode.id} leads before the SIGCONT`).toBe(true);

      old.process.resume();
      const endAt = Date.now() + OBSERVE_MS;
      const [oldAfter, nextAfter, answeredLate] = await Promise.all([healthsUntil(old, endAt), healthsUntil(nextNode, endAt), Promise.all(waiting)]);
      paused.delete(old);

      // the new leader led all along, so every leader:true of the old one is a second leader
      expect(nextAfter.length, `round ${round}: answers of ${nextNode.id}`).toBeGreaterThan(0);
      expect(
        nextAfter.filter((h) => !h.leader),
        `round ${round}: ${nextNode.id} stopped leading while observed`,
      ).toEqual([]);
      const oldSaidLeader = [...answeredLate, ...oldAfter].filter((h) => h.leader);
      if (oldSaidLeader.length > 0)
        twoLeaders.push(
          `round ${round}: ${old.id} (fence ${oldFence}) answered leader:true ${oldSaidLeader.length} times after SIGCONT (of ${answeredLate.length + oldAfter.length}) while ${nextNode.id} led`,
        );

      // settlement work of the old leader after the new leader's election (bettors kept off it until now)
      const elected = lastElection(nextNode);
      // a follower's intake of a bet whose request reached the node just before its pause is not leader work
      const stale = logLines(old.process.output()).filter(
        (l) => l.time > elected.time && l.time <= endAt && l.runtime !== 'intake' && LEADER_WORK.some((w) => w.test(l.msg)),
      );
      for (const l of stale)
        staleWork.push(
          `round ${round}: ${old.id} (fence ${oldFence}) logged "${l.msg}" (bet ${String(l.betId ?? l.seriesId ?? '-')}, fence ${String(l.fence ?? '-')}) ${l.time - elected.time} ms after ${nextNode.id} was elected (fence ${elected.fence})`,
        );
    }
    await bettors.stop();
    expect(bettors.answers.filter((a) => a.status === 200).length, 'bets placed').toBeGreaterThan(addresses.length * 3);
    expect.soft(twoLeaders, 'a resumed leader that still says it leads').toEqual([]);
    expect.soft(staleWork, 'settlement work of a deposed leader').toEqual([]);
  }, 180_000);
});
