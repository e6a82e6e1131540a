/**
 * Resumes through NATS failovers (docs/gateway-api.md#resume), on two gateways sharing a
 * three-server cluster with the event stream in three replicas and a small ring of recent events:
 *
 * 1. a client that hops between the gateways every few hundred milliseconds (as a load balancer
 *    would send it), resuming each time with `since` and `epoch` as documented, while the server a
 *    gateway's stream connection is on is SIGKILLed and started again, several times: no
 *    connection and no client gets a seq twice, and no gap comes without `recovered:false`
 *    (a gateway whose follower is behind the client's `since` must not replay what it holds);
 * 2. a client resuming on a gateway SIGSTOPped for a moment (so its `since` is above what that
 *    gateway has published) gets nothing it already has;
 * 3. a socket whose replay cannot be read (the stream has lost its quorum) is closed with 1013 and
 *    a reason naming when and from which seq to come back (that a client doing so gets exactly the
 *    rest is test/gateway/stream-resume-cut.test.ts).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { sleep } from '../support/client-request.ts';
import { collect } from '../support/ws-collector.ts';
import { eventually } from '../support/eventually.ts';
import { GatewayCluster, serverOfGateway, type ClusterNode } from '../support/gateway-cluster.ts';
import { hoppingSocket, type HoppingSocket } from '../support/hopping-socket.ts';
import { startNatsCluster, type NatsCluster } from '../support/nats-cluster.ts';

/** The highest seq a plain connect to `node` is sent within a second (its live position). */
async function liveSeqOf(node: ClusterNode): Promise<number> {
  const c = await collect(node.ws);
  await sleep(1_000);
  c.close();
  return Math.max(0, ...c.messages.map((m) => Number(m.seq)));
}

describe('resumes through NATS failovers', () => {
  let nats: NatsCluster | undefined;
  let cluster: GatewayCluster | undefined;
  const clients: HoppingSocket[] = [];
  afterAll(async () => {
    for (const c of clients) await c.stop();
    // the cluster stops the NATS it was given
    await (cluster ? cluster.stop() : nats?.stop());
  });

  /** The NATS cluster and two gateways, started by the first test that needs them. */
  async function world(): Promise<{ n: NatsCluster; c: GatewayCluster }> {
    if (!nats || !cluster) {
      nats = await startNatsCluster();
      await nats.jetStreamReady();
      cluster = await GatewayCluster.start(2, { GW_EVENT_REPLICAS: '3', GW_RESUME_RING_EVENTS: '100' }, nats);
      await cluster.leader();
      const first = cluster.nodes[0]!;
      await eventually('price events flowing', async () => ((await liveSeqOf(first)) > 5 ? true : null), 30_000, 500);
    }
    return { n: nats, c: cluster };
  }

  it('never sends a seq twice to a client moving between gateways while stream servers are killed', async () => {
    const { n, c } = await world();
    const urls = c.nodes.map((node) => node.ws);
    clients.push(hoppingSocket(urls, 400), hoppingSocket([...urls].reverse(), 700));
    await sleep(3_000);

    for (let round = 0; round < 4; round++) {
      const node = c.nodes[round % 2]!;
      const victim = serverOfGateway(node, n) ?? n.servers[round % 3]!;
      await victim.kill();
      await sleep(5_000);
      await victim.start();
      await n.jetStreamReady(30_000, ['GW_EVENTS']);
      await sleep(2_000);
    }
    const live = Math.max(...(await Promise.all(c.nodes.map(liveSeqOf))));
    for (const client of clients)
      await eventually('the client caught up', async () => (client.lastSeq() >= live ? true : null), 30_000, 200).catch((err: unknown) => {
        throw new Error(`${String(err)}: at ${client.lastSeq()} of ${live}`);
      });
    for (const [i, client] of clients.entries()) {
      const faults = client.faults();
      const resumes = client.connections.filter((x) => x.resume);
      expect(resumes.length, `client ${i} resumed`).toBeGreaterThan(20);
      expect(faults.slice(0, 20), `client ${i}: ${faults.length} fault(s) over ${client.connections.length} connections`).toEqual([]);
    }
  }, 240_000);

  it('sends nothing twice to a client that resumes on a gateway behind its since', async () => {
    const { c } = await world();
    const [ahead, behind] = c.nodes as [ClusterNode, ClusterNode];
    const repeats: string[] = [];
    let tried = 0;
    for (let round = 0; round < 5; round++) {
      const first = await collect(ahead.ws);
      // the other gateway misses a few seconds of the stream while this client keeps receiving it
      behind.process.pause();
      await sleep(2_500);
      first.close();
      const since = Math.max(...first.messages.map((m) => Number(m.seq)));
      const connecting = collect(`${behind.ws}?since=${since}`);
      await sleep(100);
      behind.process.resume();
      const next = await connecting;
      await sleep(1_500);
      next.close();
      tried++;
      const seqs = next.messages.map((m) => Number(m.seq));
      // the connect snapshot (at or before since) aside, every seq is new to this client
      const replayed = seqs.slice(seqs[0] !== undefined && seqs[0] <= since && next.messages[0]?.type === 'price' ? 1 : 0).filter((s) => s <= since);
      if (replayed.length > 0)
        repeats.push(
          `round ${round}: since ${since}, resume ${JSON.stringify(next.resumes[0])}, got again ${replayed.length}: ${replayed.slice(0, 5).join(',')}...`,
        );
      const fresh = seqs.filter((s) => s > since);
      expect(
        fresh.filter((s, i) => i > 0 && s !== fresh[i - 1]! + 1),
        'what follows since comes in order without a gap',
      ).toEqual([]);
      if (fresh.length > 0) expect(fresh[0]).toBe(since + 1);
      await sleep(1_000);
    }
    expect(tried).toBe(5);
    expect(repeats).toEqual([]);
  }, 120_000);

  it('closes a socket whose replay cannot be read (the stream lost its quorum) with when and from which seq to come back', async () => {
    const { n, c } = await world();
    const node = c.nodes[0]!;
    // older than the ring of 100: the replay must read the stream
    await eventually('more events than the ring holds', async () => ((await liveSeqOf(node)) > 160 ? true : null), 60_000, 1_000);
    const since = 20;
    const [a, b] = [n.servers[0]!, n.servers[1]!];
    await a.kill();
    await b.kill();
    const lost = await collect(`${node.ws}?since=${since}`);
    let reason = '';
    lost.socket.once('close', (_code, text) => (reason = text.toString()));
    const code = await lost.closed;
    expect(lost.resumes[0], 'the resume message comes at once').toMatchObject({ type: 'resume', recovered: true });
    const got = lost.messages.map((m) => Number(m.seq)).filter((s) => s > since);
    expect(code).toBe(1013);
    expect(reason, 'the close says when').toMatch(/retry-after-ms=\d+/);
    expect(reason, 'the close says from which seq').toMatch(new RegExp(`since=${got.at(-1) ?? since}(\\D|$)`));
  }, 120_000);
});
