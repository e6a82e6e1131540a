/**
 * One address, six concurrent `POST /api/bet` spread over three gateways (every node takes bets,
 * docs/operations.md#several-gateways: the one-open-bet rule is the chain's, so the same 409 comes
 * from every node), ten rounds, each once the previous round's bet settled: exactly one bet is
 * accepted per round, and every refusal is the 409 `{error, openBetId}` naming the accepted bet
 * (docs/gateway-api.md#errors).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { untilNoOpenBet } from '../support/chain-bets.ts';
import { request, sleep } from '../support/client-request.ts';
import { GatewayCluster } from '../support/gateway-cluster.ts';
import { collect, type Collector } from '../support/ws-collector.ts';

const ROUNDS = 10;
const CONCURRENT = 6;

interface Round {
  round: number;
  answers: Array<{ node: string; status: number; body: any }>;
}

describe('concurrent bets of one address on three gateways', () => {
  let cluster: GatewayCluster | undefined;
  const sockets: Collector[] = [];
  afterAll(async () => {
    for (const s of sockets) s.close();
    await cluster?.stop();
  });

  it('accepts exactly one per round; every refusal is a 409 whose openBetId is the accepted bet', async () => {
    cluster = await GatewayCluster.start(3);
    const c = cluster;
    await c.leader();
    const address = await c.wallet(c.nodes[0]!);
    sockets.push(...(await Promise.all(c.nodes.map((n) => collect(n.ws)))));
    await sleep(600); // a price tick reached every node

    const rounds: Round[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const answers = await Promise.all(
        Array.from({ length: CONCURRENT }, async (_, i) => {
          const node = c.nodes[i % c.nodes.length]!;
          const r = await request(node.base, 'POST', '/api/bet', { address, side: i % 2 ? 'UP' : 'DOWN', amountUnits: '100000000' });
          return { node: node.id, status: r.status, body: r.body };
        }),
      );
      rounds.push({ round, answers });
      // the next round starts once the round's bet closed on chain and its bet_closed reached every node
      await untilNoOpenBet(c.chainUrl, [address], 30_000);
      for (const id of answers.filter((a) => a.status === 200).map((a) => String(a.body.id))) {
        for (const s of sockets) await s.until((m) => m.some((e) => e.type === 'bet_closed' && e.id === id), 20_000);
      }
    }

    const shown = (r: Round) => `round ${r.round}: ${r.answers.map((a) => `${a.node} ${a.status} ${JSON.stringify(a.body)}`).join(' | ')}`;
    const accepted = (r: Round) => r.answers.filter((a) => a.status === 200);
    expect.soft(rounds.filter((r) => accepted(r).length !== 1).map(shown), 'rounds without exactly one 200').toEqual([]);
    expect.soft(rounds.filter((r) => r.answers.some((a) => a.status !== 200 && a.status !== 409)).map(shown), 'refusals other than 409').toEqual([]);
    const wrongOpenBetId = rounds.flatMap((r) => {
      const id = accepted(r).length === 1 ? String(accepted(r)[0]!.body.id) : null;
      return r.answers
        .filter((a) => a.status === 409 && (id === null || a.body?.openBetId !== id))
        .map((a) => `round ${r.round}, ${a.node}: 409 ${JSON.stringify(a.body)} (accepted: ${id})`);
    });
    expect.soft(wrongOpenBetId, '409s whose openBetId is not the accepted bet').toEqual([]);
  }, 180_000);
});
