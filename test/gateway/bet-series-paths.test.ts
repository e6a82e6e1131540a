/**
 * Model-based test against the real chain: the outcome paths of the bet machine (generated with
 * @xstate/graph: win, loss, tie; Profile B tie replays up to the cap) lived through by the real
 * runtime — `LiveBets` with the gateway's settlement effects (`settlement/effects.ts`), a real
 * price history, and the program in the local chain (LiteSVM) over JSON-RPC. Each window of a
 * path becomes ticks in the history around the bet's on-chain expiry; the test then checks the
 * emitted events, the final state and replayCount against the path, and the chain's accounts:
 * every bet of the chain closed once, with the contract's status (docs/gateway-api.md#bet-status), and the bettor's tokens.
 * The scripted-effects model test (`bet-model.test.ts`) covers failures, retries and restarts.
 */
import { getSimplePaths, type StatePath } from '@xstate/graph';
import { PublicKey, type Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyMachineSnapshot, EventObject } from 'xstate';
import { createMemoryPriceHistory } from '../../adapters/store/price-history/memory.ts';
import { createMemorySnapshotStore } from '../../adapters/store/snapshot/memory.ts';
import type { RpcChain } from '../../adapters/chain/rpc-chain/index.ts';
import { betMachine } from '../../machines/bet.ts';
import type { BetEmittedEvent } from '../../machines/bet-events.ts';
import type { BetContext, BetInput } from '../../machines/bet-types.ts';
import { LiveBets } from '../../runtime/gateway/bets/live-bets.ts';
import { formatE8 } from '../../runtime/gateway/prices/rules.ts';
import { settlementEffects } from '../../runtime/gateway/settlement/effects.ts';
import { betInputOf } from '../../runtime/gateway/settlement/settler.ts';
import { fundedBettor, startTestChain, type TestChain } from '../chain/support.ts';
import { recordInto } from '../support/published.ts';
import { setTimeout as sleep } from 'node:timers/promises';

type Path = StatePath<AnyMachineSnapshot, EventObject>;
type Move = 'up' | 'down' | 'tie';
const STAKE = 100_000_000n;
const ENTRY = 15_000_000_000n;
const STEP = 1_000_000n;

/** The world of the outcome paths: the clock at expiry, a priced exit above/below/at the entry, a close and a replacement that succeed. */
function outcomeEvents(snap: AnyMachineSnapshot): EventObject[] {
  const c = snap.context as BetContext;
  const entry = BigInt(c.entryPrice);
  const events: EventObject[] = [{ type: 'TICK', now: c.expireTime * 1000 } as EventObject];
  for (const value of [entry + STEP, entry - STEP, entry]) {
    events.push({ type: 'xstate.done.actor.priceExit', output: { kind: 'price', value: String(value) } } as EventObject);
  }
  if (c.exitPrice !== null) {
    const exit = BigInt(c.exitPrice);
    const status = exit === entry ? 3 : exit > entry === (c.side === 'UP') ? 1 : 2;
    events.push({ type: 'xstate.done.actor.closeOnChain', output: { kind: 'closed', status, signature: 's' } } as EventObject);
    events.push({
      type: 'xstate.done.actor.closeAndReplace',
      output: { kind: 'replaced', signature: 's', next: { id: String(BigInt(c.id) + 1n), entryPrice: c.exitPrice, expireTime: c.expireTime + 2 } },
    } as EventObject);
  }
  return events;
}

/** Complete outcome paths (ending in a final state) of the machine for `input`. */
function outcomePaths(input: BetInput): Path[] {
  const paths = getSimplePaths(betMachine, { input, events: outcomeEvents } as Parameters<typeof getSimplePaths>[1]) as unknown as Path[];
  return paths.filter((p) => p.state.status === 'done');
}

/** The window moves of a path: each priced exit against the entry of the bet it priced. */
function movesOf(path: Path): Move[] {
  const moves: Move[] = [];
  path.steps.forEach((step, i) => {
    const e = step.event as EventObject & { output?: { value?: string } };
    if (e.type !== 'xstate.done.actor.priceExit' || !e.output?.value) return;
    const before = path.steps[i - 1]?.state.context as BetContext;
    const exit = BigInt(e.output.value);
    const entry = BigInt(before.entryPrice);
    moves.push(exit === entry ? 'tie' : exit > entry ? 'up' : 'down');
  });
  return moves;
}

let chain: TestChain;
let rpc: RpcChain;
beforeAll(async () => {
  chain = await startTestChain({ minAmount: 100_000_000n, maxAmount: 10_000_000_000n, multiplierBps: 13_000n, expirySeconds: 1n, refundAfterSeconds: 300n });
  rpc = chain.adapter();
}, 120_000);
afterAll(async () => {
  await chain?.stop();
});

/** Places a real bet, then lives the path's windows through the real runtime. */
async function livePath(path: Path, side: 'UP' | 'DOWN', replayTies: boolean, maxReplays: number) {
  const bettor: Keypair = await fundedBettor(rpc);
  const history = createMemoryPriceHistory();
  const published: BetEmittedEvent[] = [];
  const bets = await LiveBets.boot({
    store: createMemorySnapshotStore<BetEmittedEvent>(),
    effects: settlementEffects({ chain: rpc, history, keyFor: async (a) => (a === bettor.publicKey.toBase58() ? bettor : undefined), now: Date.now }),
    publish: recordInto(published),
    retry: { baseMs: 100, maxMs: 300 },
  });
  try {
    await history.append({ price: formatE8(ENTRY), ts: Date.now() });
    const first = (await rpc.placeBet({ stake: { kind: 'signer', bettor }, side, amount: STAKE, entryPrice: ENTRY })).bet;
    const seriesId = bets.open(betInputOf(first, { replayTies, maxReplays }));

    let current = first;
    for (const move of movesOf(path)) {
      const exit = move === 'tie' ? current.entryPrice : move === 'up' ? current.entryPrice + STEP : current.entryPrice - STEP;
      const t = Number(current.expireTime) * 1000;
      await history.append({ price: formatE8(exit), ts: t - 1 }); // the exit tick (last at or before expiry)
      await history.append({ price: formatE8(exit), ts: t + 1 }); // a tick after expiry: the exit may be taken
      const before = current.id.toString();
      // clock ticks until this bet is done with: replaced, or the chain ended
      for (let i = 0; i < 200; i++) {
        await sleep(50);
        bets.tick(Date.now());
        await bets.settled();
        const summary = bets.summaryOf(seriesId);
        if (!summary || summary.betId !== before) break;
      }
      const snap = (await bets.snapshotOf(seriesId))?.context;
      const replacement = snap?.id;
      const closed = await rpc.readBet(current);
      expect(closed?.status, `bet ${current.id} after a ${move}`).not.toBe(0);
      expect(closed?.exitPrice).toBe(exit);
      if (replacement && replacement !== before) {
        const next = await rpc.readBet({ bettor: current.bettor, seq: BigInt(snap.seq) });
        if (!next) throw new Error('replacement not on chain');
        expect(next).toMatchObject({ status: 0, side, amount: STAKE, entryPrice: exit, bettor: bettor.publicKey.toBase58() });
        current = next;
      }
    }
    return { published, final: path.state, bettor, first, last: current };
  } finally {
    await bets.stop();
  }
}

const scenarios = [
  { name: 'Profile A, UP', side: 'UP' as const, replayTies: false, maxReplays: 10 },
  { name: 'Profile A, DOWN', side: 'DOWN' as const, replayTies: false, maxReplays: 10 },
  { name: 'Profile B, UP, GW_MAX_REPLAYS=2', side: 'UP' as const, replayTies: true, maxReplays: 2 },
];

for (const s of scenarios) {
  describe(`bet series paths on the real chain: ${s.name}`, () => {
    const paths = outcomePaths({
      id: '1',
      seq: '0',
      bettor: PublicKey.default.toBase58(),
      side: s.side,
      amountUnits: String(STAKE),
      entryPrice: String(ENTRY),
      expireTime: 1_800_000_000,
      replayTies: s.replayTies,
      maxReplays: s.maxReplays,
    });

    it('has a path to each final state, and replays up to the cap in Profile B', () => {
      expect(new Set(paths.map((p) => String(p.state.value)))).toEqual(new Set(['payout_done', 'house_won', 'refunded']));
      const most = Math.max(...paths.map((p) => (p.state.context as BetContext).replayCount));
      expect(most).toBe(s.replayTies ? s.maxReplays : 0);
    });

    it.each(paths.map((p) => [movesOf(p).join(' > '), p] as const))('%s', async (_, path) => {
      const { published, final, bettor, first, last } = await livePath(path, s.side, s.replayTies, s.maxReplays);
      const model = final.context as BetContext;
      const status = ({ payout_done: 1, house_won: 2, refunded: 3 } as const)[String(final.value) as 'payout_done' | 'house_won' | 'refunded'];
      // events: bet_open, one bet_replay per replay (replayCount 1..n), then exactly one bet_closed
      expect(published.map((e) => e.type)).toEqual(['bet_open', ...Array<string>(model.replayCount).fill('bet_replay'), 'bet_closed']);
      expect(published[0]).toMatchObject({ id: first.id.toString(), side: s.side, amountUnits: String(STAKE) });
      published.slice(1, -1).forEach((e, i) => expect(e).toMatchObject({ type: 'bet_replay', replayCount: i + 1, side: s.side }));
      expect(published.at(-1)).toEqual({
        type: 'bet_closed',
        id: last.id.toString(),
        bettor: bettor.publicKey.toBase58(),
        exitPrice: Number((await rpc.readBet(last))?.exitPrice),
        status,
        statusName: String(final.value),
      });
      // the chain agrees: the last bet has the model's status; ties returned the stake exactly
      expect((await rpc.readBet(last))?.status).toBe(status);
      const tokens = (await rpc.balances(bettor.publicKey)).tokenUnits;
      const payout = status === 1 ? (STAKE * 13_000n) / 10_000n : status === 3 ? STAKE : 0n;
      expect(tokens).toBe(10_000_000_000n - STAKE + payout);
      expect((await rpc.readBettorState(bettor.publicKey))?.openBetId).toBeNull();
    });
  });
}
