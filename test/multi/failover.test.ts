/**
 * Three gateways on one NATS, one Redis and one chain (docs/operations.md#several-gateways),
 * reclaims on (the default): exactly one leads (`/health`), every node takes bets (the one-open-bet
 * rule holds across nodes), and when the leader is SIGKILLed with bets open another node takes over
 * within the lease TTL and every bet settles exactly once: settled on chain, one `bet_closed` each
 * in the event log. Then bets taken by a follower that is paused (SIGSTOP) while they are in flight
 * are settled by the leader, and once the follower resumed the bet history (`GET /api/bets/:id`)
 * holds every bet the chain held with the chain's outcome and close transaction
 * (docs/decisions.md#history-in-the-commit).
 */
import { PublicKey } from '@solana/web3.js';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRoleKey } from '../../adapters/chain/local/data-dir.ts';
import { RpcChain } from '../../adapters/chain/rpc-chain/index.ts';
import { BetAccountWatch, untilNoOpenBet } from '../support/chain-bets.ts';
import { request, sleep } from '../support/client-request.ts';
import { GatewayCluster, type ClusterNode } from '../support/gateway-cluster.ts';
import { auditHistory } from '../support/history-audit.ts';
import { collect } from '../support/ws-collector.ts';

const TTL_MS = 1_500;

describe('three gateways, one leader, failover', () => {
  let cluster: GatewayCluster | undefined;
  let view: RpcChain | undefined;
  let chainWatch: BetAccountWatch | undefined;
  /** funded wallets, each with the node it bets on */
  const wallets: Array<{ address: string; node: ClusterNode }> = [];
  afterAll(async () => {
    chainWatch?.close();
    view?.close();
    await cluster?.stop();
  });

  it('one leader; bets on every node; the leader SIGKILLed with bets open: a follower takes over within the TTL and every bet settles once', async () => {
    cluster = await GatewayCluster.start(3, { GW_LEASE_TTL_MS: String(TTL_MS) });
    const c = cluster;
    const relayer = loadRoleKey(c.dataDir, 'relayer');
    if (!relayer) throw new Error('no relayer key');
    view = new RpcChain({ url: c.chainUrl, keys: { relayer }, pollMs: 25, timeoutMs: 5_000 });
    chainWatch = await BetAccountWatch.start(c.chainUrl);

    const leader = await c.leader();
    const healths = await c.healths();
    expect(healths.map((h) => h.body.node).sort()).toEqual(['gw-1', 'gw-2', 'gw-3']);
    expect(healths.filter((h) => h.leader).map((h) => h.node.id)).toEqual([leader.id]);
    const followers = c.nodes.filter((n) => n !== leader);

    // two wallets per node; each bets on a node other than the one that created it
    for (const [i, node] of c.nodes.entries()) for (let k = 0; k < 2; k++) wallets.push({ address: await c.wallet(node), node: c.nodes[(i + 1) % 3]! });
    await sleep(600); // a price tick reached every node

    const placed: string[] = [];
    for (const w of wallets) {
      const r = await request(w.node.base, 'POST', '/api/bet', { address: w.address, side: placed.length % 2 ? 'UP' : 'DOWN', amountUnits: '100000000' });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      placed.push(String(r.body.id));
    }
    // one open bet per address on every node: the same 409 wherever the second bet goes
    for (const node of c.nodes) {
      const again = await request(node.base, 'POST', '/api/bet', { address: wallets[0]!.address, side: 'UP', amountUnits: '100000000' });
      expect(again.status).toBe(409);
      expect(again.body.openBetId).toBe(placed[0]);
    }

    // the leader dies with every bet open
    await leader.process.kill();
    const killed = Date.now();
    const next = await c.leader(TTL_MS + 5_000);
    const takeoverMs = Date.now() - killed;
    expect(followers).toContain(next);
    expect(takeoverMs).toBeLessThan(TTL_MS + 2_000);

    // every bet settles on chain, each exactly once in the log
    const deadline = Date.now() + 30_000;
    for (;;) {
      const bets = (await Promise.all(wallets.map((w) => view!.scanBetsOf(new PublicKey(w.address))))).flat();
      if (placed.every((id) => bets.some((b) => b.id.toString() === id && b.status !== 0))) break;
      if (Date.now() > deadline)
        throw new Error(
          `bets still open: ${bets
            .filter((b) => b.status === 0)
            .map((b) => b.id)
            .join(', ')}`,
        );
      await sleep(300);
    }
    const replay = await collect(`${followers.find((f) => f !== next)!.ws}?since=0`);
    await replay.until((m) => placed.every((id) => m.some((e) => e.type === 'bet_closed' && e.id === id)), 20_000);
    await sleep(500);
    replay.close();
    for (const id of placed) {
      expect(
        replay.messages.filter((e) => e.type === 'bet_open' && e.id === id),
        `bet_open of ${id}`,
      ).toHaveLength(1);
      expect(
        replay.messages.filter((e) => e.type === 'bet_closed' && e.id === id),
        `bet_closed of ${id}`,
      ).toHaveLength(1);
    }
    const seqs = replay.messages.map((e) => e.seq).filter((s): s is number => typeof s === 'number');
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    // the new leader logged its closes with its fencing token
    expect(next.process.output()).toMatch(/"fence":\d+.*settled|settled.*"fence":\d+/);

    // the history of the bets the killed leader left open: each with the chain's outcome
    const held = await chainWatch!.everHeld();
    expect(held.unseen).toEqual([]);
    expect(await auditHistory(next.base, held.bets)).toEqual([]);
  }, 90_000);

  it('bets taken by a follower paused (SIGSTOP) while they are in flight: the leader settles them, and after the follower resumed the history holds each with the chain outcome', async () => {
    const c = cluster!;
    const leader = await c.leader();
    const follower = c.nodes.find((n) => n !== leader && n.process.running)!;
    const addresses = wallets.map((w) => w.address);
    const answered: Array<{ status: number; body: unknown }> = [];
    for (let round = 0; round < 3; round++) {
      await untilNoOpenBet(c.chainUrl, addresses, 20_000);
      // every wallet bets through the follower at once; the follower is stopped as soon as the first
      // answer comes, so the others are caught anywhere between the chain and the history write
      const answers = addresses.map((address, i) =>
        request(follower.base, 'POST', '/api/bet', { address, side: i % 2 ? 'UP' : 'DOWN', amountUnits: '100000000' }, 60_000),
      );
      await Promise.race(answers);
      follower.process.pause();
      // the leader settles whatever reached the chain (adopted from the chain or from Redis)
      await untilNoOpenBet(c.chainUrl, addresses, 20_000);
      await sleep(1_000);
      follower.process.resume();
      for (const a of await Promise.all(answers)) answered.push({ status: a.status, body: a.body });
    }
    expect(answered.filter((a) => a.status === 200).length, JSON.stringify(answered)).toBeGreaterThan(0);
    await untilNoOpenBet(c.chainUrl, addresses, 30_000);

    expect(chainWatch!.dropped).toBe(false);
    const held = await chainWatch!.everHeld();
    expect(held.unseen).toEqual([]);
    // asked through the follower that was paused, and through the leader: the history is one, in Redis
    expect.soft(await auditHistory(follower.base, held.bets), 'history through the follower that was paused').toEqual([]);
    expect.soft(await auditHistory(leader.base, held.bets, 0), 'history through the leader').toEqual([]);
  }, 120_000);
});
