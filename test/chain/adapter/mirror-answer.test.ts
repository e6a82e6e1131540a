/**
 * Placements answered from the mirror (docs/architecture.md#answering-from-the-mirror) on a local
 * chain whose statuses lag seconds behind the accounts, as busy RPC nodes' do: a placement whose
 * intent is this gateway's own is answered when the mirror holds its bet, well before its status;
 * a placement for a bettor another gateway is placing for waits for that one and is never
 * answered with the other's bet; two gateways sharing one Redis intent store, placing the same
 * bet for the same bettor at once, get one bet and exactly one success.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProgramRefusal } from '../../../adapters/chain/port.ts';
import type { RpcChain } from '../../../adapters/chain/rpc-chain/index.ts';
import { createRedisIntentStore } from '../../../adapters/store/intents/redis.ts';
import type { IntentStore } from '../../../adapters/store/intents/port.ts';
import { sharedTestRedis } from '../../support/redis-prefix.ts';
import { TEST_PARAMS, fundedBettor, startTestChain, type TestChain } from '../support.ts';
import { signed } from './fixtures.ts';
import { setTimeout as sleep } from 'node:timers/promises';

/** long enough that a loaded machine still answers well inside it */
const LAG_MS = 4_000;
const shared = sharedTestRedis();

describe('placements answered from the mirror, statuses 4 s late', () => {
  let t: TestChain;
  let intents: IntentStore;
  let first: RpcChain;
  let second: RpcChain;
  beforeAll(async () => {
    t = await startTestChain(TEST_PARAMS, `status-lag-ms=${LAG_MS},drop=0.3`);
    // two gateways of one deployment: one chain, one Redis intent store
    intents = createRedisIntentStore(shared.redis(), { prefix: shared.prefix() });
    // a placement waiting for another's status may take a lag and more before it is answered
    first = t.adapter({ intents, answerWithinMs: 4 * LAG_MS });
    second = t.adapter({ intents, answerWithinMs: 4 * LAG_MS });
  });
  afterAll(() => t?.stop());

  it('answers a placement once the mirror holds its bet, before the status is served, and drops its intent once the status confirms it', async () => {
    const bettor = await fundedBettor(first);
    const placed = await first.placeBet(signed(bettor));
    // answered while the node still serves no status for it
    expect(await statusOf(t.chain.url, placed.signature)).toBeNull();
    expect(placed.bet).toMatchObject({ bettor: bettor.publicKey.toBase58(), seq: 0n, side: 'UP', status: 0 });
    expect(await t.adapter().readBet(placed.bet)).toMatchObject({ id: placed.bet.id });
    // the intent stays recorded while its status is awaited, then goes
    const key = `place_bet:${bettor.publicKey.toBase58()}`;
    expect((await intents.list()).map((i) => i.signature)).toContain(placed.signature);
    await until(async () => !(await intents.list()).some((i) => i.key === key), LAG_MS + 10_000);
  });

  it("a placement for a bettor another gateway is landing for waits for it, and is refused by the chain's one-open-bet rule, not answered with the other's bet", async () => {
    const bettor = await fundedBettor(first);
    const [a, b] = await Promise.allSettled([first.placeBet(signed(bettor)), second.placeBet(signed(bettor))]);
    const succeeded = [a, b].filter((r) => r.status === 'fulfilled');
    expect(succeeded).toHaveLength(1);
    const failed = [a, b].find((r) => r.status === 'rejected');
    expect(
      failed?.status === 'rejected' && failed.reason instanceof ProgramRefusal
        ? failed.reason.errorName
        : String(failed?.status === 'rejected' ? failed.reason : failed),
    ).toBe('OpenBetExists');
    const bets = await t.adapter().scanBetsOf(bettor.publicKey);
    expect(bets).toHaveLength(1);
  });

  it('many bettors on two gateways at once: every success names a bet on chain of its own bettor, one bet per success', async () => {
    const bettors = await Promise.all(Array.from({ length: 6 }, () => fundedBettor(first)));
    // each bettor asks both gateways at once, twice over
    const attempts = bettors.flatMap((b) => [first, second, first, second].map((gw) => gw.placeBet(signed(b)).then((p) => ({ bettor: b, p }))));
    const results = await Promise.allSettled(attempts);
    const ok = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    expect(ok).toHaveLength(bettors.length);
    for (const r of results)
      if (r.status === 'rejected') expect(r.reason instanceof ProgramRefusal ? r.reason.errorName : String(r.reason)).toBe('OpenBetExists');
    for (const b of bettors) {
      const mine = ok.filter((o) => o.bettor === b);
      expect(mine).toHaveLength(1);
      expect((await t.adapter().scanBetsOf(b.publicKey)).map((bet) => bet.id)).toEqual([mine[0]!.p.bet.id]);
    }
  });
});

/** The node's status of `signature` (null while it lags). */
async function statusOf(url: string, signature: string): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSignatureStatuses', params: [[signature]] }),
  });
  const body = (await res.json()) as { result: { value: unknown[] } };
  return body.result.value[0];
}

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await sleep(100);
  }
}
