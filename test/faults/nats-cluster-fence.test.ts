/**
 * Fences that never go backwards (docs/architecture.md#the-leader): two gateways whose leader lease
 * lives in a replicated KV bucket of a three-server NATS cluster, bets flowing from a loop. In
 * turn: the NATS server that leads the lease's bucket is SIGKILLed (and started again), the leader
 * gateway is paused (SIGSTOP) past its lease until the other took over and then resumed
 * (SIGCONT), and the leader gateway is SIGKILLed (and started again). Afterwards:
 *
 * - the fences of successive elections, across both gateways, strictly increase (a node re-taking
 *   the lease it still held keeps its fence: no other node was elected in between);
 * - no close was committed with a fence lower than one already elected before it (the resumed
 *   leader did not act with its old fence);
 * - the highest fence recorded in the bucket is the last one elected, and bets kept closing.
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, describe, expect, it } from 'vitest';
import type { BettingLoop } from '../support/betting-loop.ts';
import { request, sleep } from '../support/client-request.ts';
import { eventually } from '../support/eventually.ts';
import { GatewayCluster, type ClusterNode } from '../support/gateway-cluster.ts';
import { logLines, type LogLine } from '../support/gateway-log.ts';
import { startNatsCluster, type NatsCluster } from '../support/nats-cluster.ts';

const TTL_MS = 1_500;
const BUCKET = 'GW_EVENTS_LEADER';

/** The `elected leader` and `bet <id> settled` lines of every gateway, in time order. */
function leaderWork(nodes: ClusterNode[]): Array<LogLine & { node: string }> {
  return nodes
    .flatMap((n) => logLines(n.process.output()).map((l) => ({ ...l, node: n.id })))
    .filter((l) => l.msg.startsWith('elected leader') || /^bet \d+ settled/.test(l.msg))
    .sort((a, b) => a.time - b.time);
}

async function leads(node: ClusterNode): Promise<boolean> {
  const r = await request(node.base, 'GET', '/health', undefined, 2_000).catch(() => null);
  return r?.body?.leader === true;
}

describe('the settler fence on a three-server NATS cluster', () => {
  let nats: NatsCluster | undefined;
  let cluster: GatewayCluster | undefined;
  let bettors: BettingLoop | undefined;
  let admin: NatsConnection | undefined;
  afterAll(async () => {
    await bettors?.stop();
    await admin?.close().catch(() => undefined);
    await cluster?.stop();
  });

  it('gives each new leader a higher fence, and a resumed old leader closes nothing with its old one', async () => {
    nats = await startNatsCluster();
    await nats.jetStreamReady();
    const n = nats;
    cluster = await GatewayCluster.start(2, { GW_EVENT_REPLICAS: '3', GW_LEASE_TTL_MS: String(TTL_MS) }, n);
    const c = cluster;
    admin = await connect({ servers: n.url.split(','), maxReconnectAttempts: -1, reconnectTimeWait: 200 });
    await c.leader();
    const wallets = await c.walletsOnEveryNode(3);
    const away = new Set<ClusterNode>();
    bettors = c.bettingLoop(wallets, away);
    bettors.start();
    await sleep(5_000);
    const closedBy = () => leaderWork(c.nodes).filter((l) => l.msg.includes('settled')).length;

    // 1. the NATS server leading the lease's bucket dies
    const info = await (await jetstreamManager(admin)).streams.info(`KV_${BUCKET}`);
    expect(info.config.num_replicas).toBe(3);
    const bucketLeader = n.servers.find((s) => s.serverName === info.cluster?.leader);
    expect(bucketLeader, 'the server leading the bucket').toBeDefined();
    let closed = closedBy();
    await bucketLeader!.kill();
    await eventually('bets closing with the bucket leader down', async () => (closedBy() > closed + 2 ? true : null), 60_000, 500);
    await bucketLeader!.start();
    await n.jetStreamReady(30_000, ['GW_EVENTS', `KV_${BUCKET}`]);

    // 2. the leader gateway paused past its lease, resumed once the other leads
    const paused = await c.leader(30_000);
    const other = c.nodes.find((x) => x !== paused)!;
    away.add(paused);
    paused.process.pause();
    await eventually('the other gateway leading', async () => ((await leads(other)) ? true : null), 30_000, 100);
    await sleep(4_000); // the paused one's bets expire meanwhile: it has closes to send when it wakes
    paused.process.resume();
    await sleep(3_000);
    away.delete(paused);

    // 3. the leader gateway killed, started again
    const killed = await c.leader(30_000);
    away.add(killed);
    await killed.process.kill();
    closed = closedBy();
    await eventually('bets closing on the other gateway', async () => (closedBy() > closed + 2 ? true : null), 60_000, 500);
    await killed.process.start();
    away.delete(killed);
    await sleep(5_000);
    await bettors.stop();

    const work = leaderWork(c.nodes);
    const elections = work.filter((l) => l.msg.startsWith('elected leader'));
    const fences = elections.map((l) => Number(l.fence));
    expect(elections.length, 'elections').toBeGreaterThanOrEqual(3);
    // a node that lost its standing (renewals failing while the bucket elected a new leader) but
    // whose lease no one else took re-takes it under the same fence: the same leader, not a second one
    const backwards = elections.filter((l, i) => {
      const prev = elections[i - 1];
      if (!prev) return false;
      const f = Number(l.fence);
      const p = Number(prev.fence);
      return f < p || (f === p && l.node !== prev.node);
    });
    expect(backwards, `fences of successive elections ${elections.map((l) => `${l.node}:${l.fence}`).join(', ')}`).toEqual([]);
    // a close committed under a fence lower than one already elected: a stale leader acted
    let highest = 0;
    const stale: string[] = [];
    for (const l of work) {
      const fence = Number(l.fence);
      if (l.msg.startsWith('elected leader')) highest = Math.max(highest, fence);
      else if (fence < highest) stale.push(`${l.node}: "${l.msg}" with fence ${fence} after fence ${highest} was elected`);
    }
    expect(stale, 'closes by a stale leader').toEqual([]);
    expect(work.filter((l) => l.msg.includes('settled')).length, 'bets closed').toBeGreaterThan(wallets.length);

    const kv = await new Kvm(admin).open(BUCKET);
    const used = await kv.get('fence-used');
    expect(Number(used?.string())).toBe(fences.at(-1));
  }, 300_000);
});
