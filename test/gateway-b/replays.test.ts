/**
 * Profile B tie replays, black box (docs/gateway-api.md#bet-status, docs/decisions.md#the-replay-cap): ties until the cap,
 * a chain broken by a win, and a restart in the middle of a chain.
 */
import { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, EventClient, sleep, startGatewayStack, type GatewayStack } from '../support/gateway-stack.ts';

let stack: GatewayStack;
let bettor: string;
let price = '150.00';
let ticker: NodeJS.Timeout;
const api = (method: string, path: string, body?: unknown) => call(stack.base, method, path, body);
const tokens = async () => BigInt((await api('GET', `/api/balance/${bettor}`)).body.tokenUnits);

beforeAll(async () => {
  stack = await startGatewayStack({ GW_PROFILE: 'B', GW_FIXED_BETTOR: Keypair.generate().publicKey.toBase58(), GW_MAX_REPLAYS: '2' });
  bettor = (await call(stack.base, 'POST', '/api/wallet')).body.address;
  await api('GET', `/api/faucet/${bettor}`);
  await stack.restartGateway('SIGTERM', { GW_FIXED_BETTOR: bettor });
  // a steady feed: every 250 ms the current price, so windows end in ties unless the test moves it
  ticker = setInterval(() => {
    stack.tick(price).catch(() => undefined);
  }, 250);
  // (expect.poll is only allowed inside a test)
  for (let i = 0; i < 100 && (await api('GET', '/api/state')).body.canBet !== true; i++) await sleep(100);
}, 180_000);

afterAll(async () => {
  clearInterval(ticker);
  await stack?.stop();
});

const chainEvents = (ws: EventClient, fromId: string) => {
  // the events of one chain, in order: bet_open, bet_replay..., bet_closed
  const out: any[] = [];
  let current = fromId;
  for (const e of ws.events) {
    if (e.type === 'bet_open' && e.id === fromId) out.push(e);
    if (e.type === 'bet_replay' && e.prevId === current) {
      out.push(e);
      current = e.id;
    }
    if (e.type === 'bet_closed' && e.id === current) out.push(e);
  }
  return out;
};

it('replays ties as new bets until GW_MAX_REPLAYS, then closes as refunded', async () => {
  price = '150.00';
  const ws = new EventClient(stack.wsUrl);
  await ws.opened;
  const before = await tokens();
  const r = await api('POST', '/api/bet', { side: 'UP' });
  expect(r.body).toMatchObject({ accepted: true, amountUnits: '3000000000', entryPrice: 15_000_000_000 });
  const first = r.body.betId as string;

  const r1 = await ws.waitFor((e) => e.type === 'bet_replay' && e.prevId === first, 30_000);
  expect(r1).toEqual({
    type: 'bet_replay',
    id: expect.stringMatching(/^\d+$/),
    prevId: first,
    bettor,
    side: 'UP',
    amountUnits: '3000000000',
    entryPrice: 15_000_000_000,
    expireTime: expect.any(Number),
    replayCount: 1,
    seq: expect.any(Number),
  });
  expect(BigInt(r1.id)).toBeGreaterThan(BigInt(first));
  const r2 = await ws.waitFor((e) => e.type === 'bet_replay' && e.prevId === r1.id, 30_000);
  expect(r2).toMatchObject({ replayCount: 2, bettor, side: 'UP', amountUnits: '3000000000' });
  expect(r2.expireTime).toBeGreaterThan(r1.expireTime);
  const closed = await ws.waitFor((e) => e.type === 'bet_closed' && e.id === r2.id, 30_000);
  expect(closed).toEqual({ type: 'bet_closed', id: r2.id, bettor, exitPrice: 15_000_000_000, status: 3, statusName: 'refunded', seq: expect.any(Number) });

  expect(chainEvents(ws, first).map((e) => `${e.type}:${e.replayCount ?? e.status ?? ''}`)).toEqual([
    'bet_open:',
    'bet_replay:1',
    'bet_replay:2',
    'bet_closed:3',
  ]);
  // no bet_closed for the tied bets that were replayed
  expect(ws.events.filter((e) => e.type === 'bet_closed' && (e.id === first || e.id === r1.id))).toHaveLength(0);
  expect(await tokens()).toBe(before);
  const s = await api('GET', '/api/state');
  expect(s.body.lastBet).toMatchObject({ id: r2.id, statusCode: 3, result: 'refunded' });
  ws.close();
});

it('ends a chain with bet_closed when a replayed bet wins', async () => {
  price = '150.00';
  const ws = new EventClient(stack.wsUrl);
  await ws.opened;
  const before = await tokens();
  const r = await api('POST', '/api/bet', { side: 'UP' });
  expect(r.body.accepted).toBe(true);
  const stake = BigInt(r.body.amountUnits);
  const r1 = await ws.waitFor((e) => e.type === 'bet_replay' && e.prevId === r.body.betId, 30_000);
  expect(r1.replayCount).toBe(1);
  price = '151.00';
  const closed = await ws.waitFor((e) => e.type === 'bet_closed' && e.id === r1.id, 30_000);
  expect(closed).toMatchObject({ status: 1, statusName: 'payout_done', exitPrice: 15_100_000_000 });
  expect(chainEvents(ws, r.body.betId).map((e) => e.type)).toEqual(['bet_open', 'bet_replay', 'bet_closed']);
  expect(await tokens()).toBe(before + (stake * 13_000n) / 10_000n - stake);
  ws.close();
});

it('continues a chain across a restart with the right replayCount', async () => {
  price = '150.00';
  await stack.restartGateway('SIGTERM', { GW_MAX_REPLAYS: '3' });
  // the 151 tick of the previous test is still fresh: bet only once the restarted gateway has a 150 tick
  await expect.poll(async () => (await api('GET', '/api/price')).body.price, { timeout: 10_000 }).toBe('150.00000000');
  await expect.poll(async () => (await api('GET', '/api/state')).body.canBet, { timeout: 10_000 }).toBe(true);
  const ws = new EventClient(stack.wsUrl);
  await ws.opened;
  const r = await api('POST', '/api/bet', { side: 'DOWN' });
  expect(r.body.accepted).toBe(true);
  const r1 = await ws.waitFor((e) => e.type === 'bet_replay' && e.prevId === r.body.betId, 30_000);
  expect(r1.replayCount).toBe(1);
  const seen = r1.seq as number;
  ws.close();

  await stack.restartGateway('SIGKILL');

  const after = new EventClient(`${stack.wsUrl}?since=${seen}`);
  await after.opened;
  const r2 = await after.waitFor((e) => e.type === 'bet_replay' && e.prevId === r1.id, 30_000);
  expect(r2.replayCount).toBe(2);
  price = '149.00'; // DOWN wins the third window
  const closed = await after.waitFor((e) => e.type === 'bet_closed' && e.id === r2.id, 30_000);
  expect(closed).toMatchObject({ status: 1, statusName: 'payout_done' });
  expect(after.events.filter((e) => e.type === 'bet_replay' && e.prevId === r.body.betId)).toHaveLength(0); // replay 1 not repeated
  expect(after.events.filter((e) => e.type === 'bet_closed')).toHaveLength(1);
  after.close();
});
