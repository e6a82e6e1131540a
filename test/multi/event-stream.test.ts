/**
 * One event stream for three gateways (docs/architecture.md#the-event-stream): every broadcast event is in
 * one JetStream stream, so the sockets of every node see the same events under the same seqs; a
 * bet placed on a follower is announced once, to every node; `?since=` resumes on a node other
 * than the one that saw the events (resume message, no gap, no duplicate); `GET /api/events`
 * serves the same history; a tick seen by all three gateways is in the stream once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, sleep } from '../support/fault-world.ts';
import { GatewayCluster } from '../support/gateway-cluster.ts';
import { collect, type Collector } from '../support/ws-collector.ts';

type Message = Record<string, unknown>;
const seqsOf = (ms: Message[]) => ms.map((m) => m.seq as number);

describe('three gateways, one event stream', () => {
  let cluster: GatewayCluster;
  const sockets: Collector[] = [];
  beforeAll(async () => {
    cluster = await GatewayCluster.start(3);
  }, 120_000);
  afterAll(async () => {
    for (const s of sockets) s.close();
    await cluster?.stop();
  });

  it('fans every event out to the sockets of every node under one seq sequence; a follower bet is announced once everywhere', async () => {
    const leader = await cluster.leader();
    const follower = cluster.nodes.find((n) => n !== leader)!;
    const wallet = await cluster.wallet(follower);
    const live = await Promise.all(cluster.nodes.map((n) => collect(n.ws)));
    sockets.push(...live);
    await sleep(1_000);
    const bet = await request(follower.base, 'POST', '/api/bet', { address: wallet, side: 'UP', amountUnits: '100000000' });
    expect(bet.status, JSON.stringify(bet.body)).toBe(200);
    const id = String(bet.body.id);
    for (const s of live) await s.until((m) => m.some((e) => e.type === 'bet_open' && e.id === id), 10_000);
    await sleep(1_000);
    for (const s of live) expect(s.messages.filter((e) => e.type === 'bet_open' && e.id === id)).toHaveLength(1);
    const opens = live.map((s) => s.messages.find((e) => e.type === 'bet_open' && e.id === id));
    expect(new Set(opens.map((e) => e?.seq)).size).toBe(1);

    // the same seq names the same event on every node, and each node's stream has no gap
    const bySeq = new Map<number, string>();
    for (const s of live) {
      const seqs = seqsOf(s.messages.slice(1)); // after the connect snapshot
      expect(seqs.length).toBeGreaterThan(3);
      expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => seqs[0]! + i));
      for (const e of s.messages) {
        const text = JSON.stringify(e);
        const seen = bySeq.get(e.seq as number);
        if (seen !== undefined) expect(text).toBe(seen);
        bySeq.set(e.seq as number, text);
      }
    }
    // every tick was ingested by three gateways and is in the stream once
    const prices = live[0]!.messages.filter((e) => e.type === 'price');
    expect(new Set(prices.map((e) => e.ts)).size).toBe(prices.length);
  });

  it('resumes with ?since= on a node other than the one that saw the events, then goes live', async () => {
    const [first, , third] = [cluster.nodes[0]!, cluster.nodes[1]!, cluster.nodes[2]!];
    const seen = sockets[0]!.messages;
    const since = seen[Math.floor(seen.length / 2)]!.seq as number;
    const resumed = await collect(`${third.ws}?since=${since}`);
    sockets.push(resumed);
    const lastSeen = seen[seen.length - 1]!.seq as number;
    await resumed.until((m) => m.some((e) => (e.seq as number) > lastSeen + 3), 10_000);
    expect(resumed.resumes).toHaveLength(1);
    const resume = resumed.resumes[0]!;
    expect(resume).toMatchObject({ type: 'resume', recovered: true, epoch: expect.any(String) });
    expect(resume.seq).toBeGreaterThanOrEqual(lastSeen);
    const seqs = seqsOf(resumed.messages);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => since + 1 + i));
    // what node 3 replayed is what node 1's socket saw live
    for (const e of resumed.messages.filter((m) => (m.seq as number) <= lastSeen)) expect(e).toEqual(seen.find((m) => m.seq === e.seq));

    // another epoch: not recovered, everything held is replayed
    const other = await collect(`${first.ws}?since=${since}&epoch=not-this-one`);
    sockets.push(other);
    await other.until((m) => m.length > 0, 10_000);
    expect(other.resumes[0]).toMatchObject({ type: 'resume', recovered: false, epoch: resume.epoch });
    expect(other.messages[0]?.seq).toBe(1);
    other.close();
  });

  it('serves the same history over HTTP on every node', async () => {
    const pages = await Promise.all(cluster.nodes.map((n) => request(n.base, 'GET', '/api/events?since=2&limit=5')));
    for (const p of pages) {
      expect(p.status).toBe(200);
      expect(p.body.events.map((e: Message) => e.seq)).toEqual([3, 4, 5, 6, 7]);
      expect(p.body).toEqual(pages[0]!.body);
    }
    expect(pages[0]!.body.epoch).toBe(sockets[sockets.length - 1]?.resumes[0]?.epoch ?? pages[0]!.body.epoch);
    for (const bad of ['?since=-1', '?since=x', '?limit=0', '?limit=100000', '?since=1&since=2']) {
      expect((await request(cluster.nodes[1]!.base, 'GET', `/api/events${bad}`)).status, bad).toBe(400);
    }
  });
});
