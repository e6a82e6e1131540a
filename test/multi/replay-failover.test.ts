/**
 * Profile B on three gateways: a tie replay series goes on across a SIGKILL of the leader
 * (docs/operations.md#several-gateways): the new leader rehydrates the chain from Redis and
 * continues it with its replayCount; every replay and the final bet_closed are in the stream once,
 * and the bet history holds every bet of the chain with the chain's outcome (each tie refunded,
 * with the transaction that closed it).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { BetAccountWatch } from '../support/chain-bets.ts';
import { request, sleep } from '../support/client-request.ts';
import { eventually } from '../support/eventually.ts';
import { GatewayCluster } from '../support/gateway-cluster.ts';
import { auditHistory } from '../support/history-audit.ts';
import { collect } from '../support/ws-collector.ts';

describe('Profile B replay series across a leader failover', () => {
  let cluster: GatewayCluster | undefined;
  let chainWatch: BetAccountWatch | undefined;
  afterAll(async () => {
    chainWatch?.close();
    await cluster?.stop();
  });

  it('continues the chain on the new leader with its replayCount, each event once', async () => {
    cluster = await GatewayCluster.start(3, { GW_PROFILE: 'B', GW_MAX_REPLAYS: '3' });
    const c = cluster;
    c.fixedPrice = '150.00000000'; // every window ties
    chainWatch = await BetAccountWatch.start(c.chainUrl);
    const leader = await c.leader();
    const follower = c.nodes.find((n) => n !== leader)!;
    // set-up: a node just elected or just started may still be reading the chain; a client asks again
    const state = await eventually(
      `GET /api/state answered by ${follower.id}`,
      async () => {
        const r = await request(follower.base, 'GET', '/api/state');
        return r.status === 200 ? r : null;
      },
      30_000,
      250,
    );
    const bettor = state.body.bettor as string;
    expect((await request(follower.base, 'GET', `/api/faucet/${bettor}`)).status).toBe(200);
    await sleep(600);
    const watcher = await collect(`${follower.ws}?since=0`);
    const bet = await request(follower.base, 'POST', '/api/bet', { side: 'UP' });
    expect(bet.body, JSON.stringify(bet.body)).toMatchObject({ accepted: true });
    const first = String(bet.body.betId);
    await watcher.until((m) => m.some((e) => e.type === 'bet_replay' && e.prevId === first), 15_000);

    await leader.process.kill();
    const next = await c.leader(8_000);
    expect(next).not.toBe(leader);
    await watcher.until((m) => m.some((e) => e.type === 'bet_closed'), 30_000);
    await sleep(1_000);
    watcher.close();
    const replays = watcher.messages.filter((e) => e.type === 'bet_replay');
    expect(replays.map((e) => e.replayCount)).toEqual([1, 2, 3]);
    expect(replays[0]!.prevId).toBe(first);
    expect(replays[1]!.prevId).toBe(replays[0]!.id);
    const closed = watcher.messages.filter((e) => e.type === 'bet_closed');
    expect(closed).toHaveLength(1);
    expect(closed[0]).toMatchObject({ id: replays[2]!.id, status: 3, statusName: 'refunded' });
    expect(watcher.messages.filter((e) => e.type === 'bet_open')).toHaveLength(1);

    const held = await chainWatch.everHeld();
    expect(held.bets.map((b) => b.id.toString())).toEqual([first, ...replays.map((e) => e.id)]);
    expect(await auditHistory(next.base, held.bets)).toEqual([]);
  }, 90_000);
});
