/**
 * The settlement scheduler and effects against the local chain (docs/architecture.md#settlement:
 * the chain is the truth): an expired bet no actor carries is adopted from its chain account and
 * settled; a bet whose chain is stored is left to its actor; every effect is idempotent (a second
 * close answers `already_closed`, a replay already made is found again, never made twice).
 */
import type { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { pino } from 'pino';
import { createMemoryPriceHistory } from '../../adapters/store/price-history/memory.ts';
import { createMemorySnapshotStore } from '../../adapters/store/snapshot/memory.ts';
import type { RpcChain } from '../../adapters/chain/rpc-chain/index.ts';
import type { BetEmittedEvent } from '../../machines/bet-events.ts';
import { LiveBets } from '../../runtime/gateway/bets/live-bets.ts';
import { formatE8 } from '../../runtime/gateway/prices/rules.ts';
import { settlementEffects } from '../../runtime/gateway/settlement/effects.ts';
import { Settler } from '../../runtime/gateway/settlement/settler.ts';
import { fundedBettor, startTestChain, untilUnix, type TestChain } from '../chain/support.ts';
import { recordInto } from '../support/published.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const ENTRY = 15_000_000_000n;
const signal = new AbortController().signal;
let chain: TestChain;
let rpc: RpcChain;

beforeAll(async () => {
  chain = await startTestChain({ minAmount: 100_000_000n, maxAmount: 10_000_000_000n, multiplierBps: 13_000n, expirySeconds: 1n, refundAfterSeconds: 300n });
  rpc = chain.adapter();
}, 120_000);
afterAll(async () => {
  await chain?.stop();
});

async function placed(bettor: Keypair) {
  return (await rpc.placeBet({ stake: { kind: 'signer', bettor }, side: 'UP', amount: 100_000_000n, entryPrice: ENTRY })).bet;
}

it('adopts an expired open bet without an actor, settles it once, and leaves stored series to their actors', async () => {
  const [orphanOwner, storedOwner] = await Promise.all([fundedBettor(rpc), fundedBettor(rpc)]);
  const orphan = await placed(orphanOwner);
  const stored = await placed(storedOwner);
  const history = createMemoryPriceHistory();
  for (const t of [orphan.expireTime, stored.expireTime]) {
    await history.append({ price: formatE8(ENTRY + 5n), ts: Number(t) * 1000 - 1 });
    await history.append({ price: formatE8(ENTRY + 5n), ts: Number(t) * 1000 + 1 });
  }
  const snapshots = createMemorySnapshotStore<BetEmittedEvent>();
  await snapshots.commit(stored.id.toString(), { snapshot: { status: 'done' }, final: true, events: [], rev: 1 }); // its chain is recorded: not ours to adopt
  const published: BetEmittedEvent[] = [];
  const bets = await LiveBets.boot({
    store: snapshots,
    effects: settlementEffects({ chain: rpc, history, keyFor: async () => undefined, now: Date.now }),
    publish: recordInto(published),
    retry: { baseMs: 100, maxMs: 300 },
  });
  const settler = new Settler({ chain: rpc, bets, snapshots, policy: { replayTies: false, maxReplays: 10 }, log: pino({ level: 'silent' }) });
  await untilUnix(stored.expireTime > orphan.expireTime ? stored.expireTime : orphan.expireTime);
  for (let i = 0; i < 60 && !published.some((e) => e.type === 'bet_closed'); i++) {
    await settler.settleExpiredBets(Date.now());
    await bets.settled();
    await sleep(50);
  }
  for (let i = 0; i < 5; i++) await settler.settleExpiredBets(Date.now()); // more scheduler runs change nothing
  await bets.settled();
  await bets.stop();

  expect(published.map((e) => [e.type, e.id])).toEqual([
    ['bet_open', orphan.id.toString()],
    ['bet_closed', orphan.id.toString()],
  ]);
  expect(published[1]).toMatchObject({ status: 1, statusName: 'payout_done', exitPrice: Number(ENTRY + 5n) });
  expect((await rpc.readBet(orphan))?.status).toBe(1);
  expect((await rpc.readBet(stored))?.status).toBe(0);
});

it('effects are idempotent: a second close and a second replay find the first', async () => {
  const [a, b] = await Promise.all([fundedBettor(rpc), fundedBettor(rpc)]);
  const betA = await placed(a);
  const betB = await placed(b);
  const history = createMemoryPriceHistory();
  await history.append({ price: formatE8(ENTRY), ts: Date.now() + 1500 });
  const keys = new Map([[b.publicKey.toBase58(), b]]);
  const fx = settlementEffects({ chain: rpc, history, keyFor: async (addr) => keys.get(addr), now: () => Date.now() + 1500 });
  await untilUnix((betA.expireTime > betB.expireTime ? betA.expireTime : betB.expireTime) + 1n);

  const first = await fx.closeOnChain({ betId: betA.id, ref: betA, exitPrice: ENTRY - 1n, refund: false }, signal);
  expect(first).toMatchObject({ kind: 'closed', status: 2 });
  // the second finds the first on chain: its outcome, and (from the account's signature history) its transaction
  const signature = first.kind === 'closed' ? first.signature : '';
  expect(await fx.closeOnChain({ betId: betA.id, ref: betA, exitPrice: ENTRY + 1n, refund: false }, signal)).toEqual({
    kind: 'already_closed',
    status: 2,
    exitPrice: ENTRY - 1n,
    signature,
  });

  const req = { betId: betB.id, ref: betB, exitPrice: ENTRY, side: 'UP' as const, amount: 100_000_000n };
  const replaced = await fx.closeAndReplace(req, signal);
  expect(replaced.kind).toBe('replaced');
  const again = await fx.closeAndReplace(req, signal);
  expect(again).toEqual(replaced);
  const all = await rpc.scanBetsOf(b.publicKey);
  expect(all.map((x) => [x.seq, x.status])).toEqual([
    [0n, 3],
    [1n, 0],
  ]); // one replacement, not two
  expect((await rpc.balances(b.publicKey)).tokenUnits).toBe(10_000_000_000n - 100_000_000n);
});

it('adopts a bet that expires before the next run ahead of its expiry, and a tick stored at the expiry starts the run that closes it', async () => {
  const owner = await fundedBettor(rpc);
  const history = createMemoryPriceHistory();
  const snapshots = createMemorySnapshotStore<BetEmittedEvent>();
  const published: BetEmittedEvent[] = [];
  const bets = await LiveBets.boot({
    store: snapshots,
    effects: settlementEffects({ chain: rpc, history, keyFor: async () => undefined, now: Date.now }),
    publish: recordInto(published),
  });
  const settler = new Settler({ chain: rpc, bets, snapshots, policy: { replayTies: false, maxReplays: 10 }, log: pino({ level: 'silent' }) });
  // a period far longer than the test: only the stored tick can start the closing run
  settler.start(600_000);
  const bet = await placed(owner);
  const expiry = Number(bet.expireTime) * 1000;
  // a run before the expiry (period 600 s: the bet expires before the next one) adopts it at once
  await settler.settleExpiredBets(Date.now());
  expect(bets.has(bet.id.toString())).toBe(true);
  expect(published.some((e) => e.type === 'bet_closed' && e.id === bet.id.toString())).toBe(false);
  await untilUnix(bet.expireTime);
  await history.append({ price: formatE8(ENTRY - 5n), ts: expiry - 1 });
  await history.append({ price: formatE8(ENTRY - 5n), ts: expiry + 1 });
  settler.priceStored(expiry + 1);
  const closed = () => published.find((e) => e.type === 'bet_closed' && e.id === bet.id.toString());
  await expect.poll(closed, { timeout: 10_000 }).toMatchObject({ status: 2 });
  await settler.stop();
  await bets.stop();
});
