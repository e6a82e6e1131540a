/**
 * Many bettors and no fault (docs/decisions.md#a-bet-on-chain-is-answered-200):
 * 32 custodial wallets bet in a loop for a minute (each posts again as soon as it has an answer, a
 * moment later after a refusal) on one gateway process with Redis, in front of the local chain as
 * its own process (`npm run chain`), with 3 s windows so bets cycle; reclaims on. Every
 * `POST /api/bet` answers 200 or 409 (docs/gateway-api.md#errors: nothing is down, so no 5xx), and
 * the bets the chain held (every bet account write it announced, reclaimed ones included) are
 * exactly the bets answered 200, id for id.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { BettingLoop } from '../support/betting-loop.ts';
import { BetAccountWatch } from '../support/chain-bets.ts';
import { FaultWorld, sleep } from '../support/fault-world.ts';

const WALLETS = 32;
const BETTING_MS = 60_000;

describe('32 bettors betting for a minute, no fault', () => {
  let world: FaultWorld | undefined;
  let chainWatch: BetAccountWatch | undefined;
  afterAll(async () => {
    chainWatch?.close();
    await world?.stop();
  });

  it('answers every bet 200 or 409, never 5xx, and every bet the chain held was answered 200 with its id', async () => {
    world = await FaultWorld.start({ redis: true, wallets: WALLETS, env: { GW_RECLAIM_BETS: 'on' } });
    const w = world;
    chainWatch = await BetAccountWatch.start(w.chainUrl);
    const loop = new BettingLoop({ wallets: w.wallets, gateway: () => w.base, afterBetMs: 0 });
    loop.start();
    await sleep(BETTING_MS);
    await loop.stop();
    // the last bets settle and their writes reach the watch
    await w.settledOnChain(30_000);

    const held = await chainWatch.everHeld();
    expect(chainWatch.dropped, 'the chain subscription dropped: writes may be missing').toBe(false);
    expect(held.unseen, 'bets on chain that the subscription never announced').toEqual([]);
    const answers = loop.answers;
    const count = (status: number) => answers.filter((a) => a.status === status).length;
    const summary = `${answers.length} answers: ${count(200)} x 200, ${count(409)} x 409, ${answers.filter((a) => a.status !== 200 && a.status !== 409).length} others; ${held.bets.length} bets on chain`;
    expect(count(200), summary).toBeGreaterThan(WALLETS * 5);

    // every answer is a bet or the open-bet refusal; the rest, grouped by status and error
    const others = new Map<string, number>();
    for (const a of answers.filter((x) => x.status !== 200 && x.status !== 409)) {
      const key = `${a.status} ${JSON.stringify(a.body)}`;
      others.set(key, (others.get(key) ?? 0) + 1);
    }
    expect.soft(Object.fromEntries(others), `answers other than 200 and 409 (${summary})`).toEqual({});
    expect.soft(answers.filter((a) => a.status >= 500).length, `5xx answers (${summary})`).toBe(0);

    // the chain's bets and the 200s are the same set: a bet that landed was answered as placed
    const answered = new Set(answers.filter((a) => a.status === 200).map((a) => String(a.body.id)));
    const onChain = new Set(held.bets.map((b) => b.id.toString()));
    const landedNotAnswered = held.bets
      .filter((b) => !answered.has(b.id.toString()))
      .map((b) => {
        // what its bettor was told around the time the bet was placed (betTime, unix seconds)
        const told = answers
          .filter((a) => a.address === b.bettor && Math.abs(a.sentAt / 1000 - Number(b.betTime)) < 3 && a.status !== 200)
          .map((a) => `${a.status} ${JSON.stringify(a.body)} in ${a.ms} ms`);
        return `bet ${b.id} of ${b.bettor}: ${told.join('; ') || 'no answer near its betTime'}`;
      });
    expect.soft(landedNotAnswered, `bets on chain never answered 200 (${summary})`).toEqual([]);
    expect
      .soft(
        [...answered].filter((id) => !onChain.has(id)),
        `ids answered 200 that the chain never held (${summary})`,
      )
      .toEqual([]);
  }, 240_000);
});
