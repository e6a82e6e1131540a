/**
 * Profile B, black box: the decision object and `/state` through the refusal codes in priority
 * order, every accepted `side` spelling, the 400s, and the amount rule at its clamps.
 */
import { Connection, Keypair, PublicKey } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, EventClient, startGatewayStack, until, type GatewayStack } from '../support/gateway-stack.ts';

let stack: GatewayStack;
const api = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => call(stack.base, method, path, body, headers);
const unknownBettor = Keypair.generate().publicKey.toBase58();

const refusedShape = (code: string) => ({
  accepted: false,
  reasonCode: code,
  reason: expect.stringMatching(/[а-яё]/i),
  retryAfterSeconds: null,
  betId: null,
  txSig: null,
});

async function settleOpenBet(ws: EventClient, id: string) {
  const open = await ws.waitFor((e) => (e.type === 'bet_open' || e.type === 'bet_replay') && e.id === id);
  // exit price = the last tick at or before expireTime (docs/decisions.md#entry-and-exit-prices), so the new price is stamped just before it
  await until(open.expireTime * 1000 - 300);
  await stack.tick('170.00', open.expireTime * 1000 - 1); // not a tie with any entry used here: no replay
  await until(open.expireTime * 1000 + 50);
  await stack.tick('170.00');
  await ws.waitFor((e) => e.type === 'bet_closed' && e.id === id);
}

beforeAll(async () => {
  stack = await startGatewayStack({ GW_PROFILE: 'B', GW_FIXED_BETTOR: unknownBettor });
}, 180_000);

afterAll(async () => {
  await stack?.stop();
});

describe('refusals in priority order, then acceptance', () => {
  it('walks NO_PRICE -> WALLET_UNKNOWN -> INSUFFICIENT_SOL -> INSUFFICIENT_FUNDS -> accepted -> OPEN_BET', async () => {
    // no tick yet
    let r = await api('POST', '/api/bet', { side: 'UP' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(refusedShape('NO_PRICE'));
    let s = await api('GET', '/api/state');
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ canBet: false, canBetReasonCode: 'NO_PRICE', canBetReason: r.body.reason, bettor: unknownBettor });

    await stack.tick('150.00');
    await expect.poll(async () => (await api('GET', '/api/price')).status).toBe(200);
    r = await api('POST', '/api/bet', { side: 'UP' });
    expect(r.body).toEqual(refusedShape('WALLET_UNKNOWN'));

    // a wallet of the gateway's key store becomes the fixed bettor
    const w = await call(stack.base, 'POST', '/api/wallet');
    expect(w.status).toBe(200);
    const bettor = w.body.address as string;
    await stack.restartGateway('SIGTERM', { GW_FIXED_BETTOR: bettor });
    await stack.tick('150.00');
    await expect.poll(async () => (await api('GET', '/api/price')).status).toBe(200);
    r = await api('POST', '/api/bet', { side: 'UP' });
    expect(r.body).toEqual(refusedShape('INSUFFICIENT_SOL'));

    // coin but no tokens
    const conn = new Connection(stack.chainUrl, 'confirmed');
    const sig = await conn.requestAirdrop(new PublicKey(bettor), 1_000_000_000);
    await conn.confirmTransaction(sig, 'confirmed');
    r = await api('POST', '/api/bet', { side: 'UP' });
    expect(r.body).toEqual(refusedShape('INSUFFICIENT_FUNDS'));
    s = await api('GET', '/api/state');
    expect(s.body).toMatchObject({ canBet: false, canBetReasonCode: 'INSUFFICIENT_FUNDS', betAmountUnits: '100000000', betAmountHuman: '100.000000' });

    // funded: accepted with the whole decision object, 30 % of 10000 tokens
    expect((await api('GET', `/api/faucet/${bettor}`)).status).toBe(200);
    s = await api('GET', '/api/state');
    expect(s.body).toMatchObject({
      canBet: true,
      canBetReasonCode: null,
      canBetReason: null,
      betPercent: 30,
      betAmountUnits: '3000000000',
      betAmountHuman: '3000.000000',
    });
    const ws = new EventClient(stack.wsUrl);
    await ws.opened;
    await stack.tick('150.00');
    await expect.poll(async () => (await api('GET', '/api/price')).body.price).toBe('150.00000000'); // not an older, still fresh tick
    r = await api('POST', '/api/bet', { side: 'UP', address: unknownBettor, amountUnits: '999' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      accepted: true,
      reasonCode: null,
      reason: null,
      retryAfterSeconds: 3,
      betId: expect.stringMatching(/^\d+$/),
      txSig: expect.any(String),
      amountUnits: '3000000000',
      amountHuman: '3000.000000',
      side: 'UP',
      entryPrice: 15_000_000_000,
      expireTime: expect.any(Number),
      id: r.body.betId,
      tx: r.body.txSig,
      bettor,
    });

    // open bet: refused with retryAfterSeconds, and /state agrees
    const again = await api('POST', '/api/bet', { side: 'DOWN' });
    expect(again.body).toMatchObject({ accepted: false, reasonCode: 'OPEN_BET', betId: null, txSig: null });
    expect(again.body.retryAfterSeconds).toBeGreaterThanOrEqual(0);
    expect(again.body.retryAfterSeconds).toBeLessThanOrEqual(3);
    s = await api('GET', '/api/state');
    expect(s.body).toMatchObject({ canBet: false, canBetReasonCode: 'OPEN_BET', lastBet: null });
    expect(s.body.openBet).toMatchObject({
      id: r.body.betId,
      status: 'open',
      statusCode: 0,
      result: null,
      side: 'UP',
      amountUnits: '3000000000',
      exitPrice: 0,
    });
    expect(s.body.balance).toEqual({ sol: expect.any(Number), solLamports: expect.any(Number), tokenUnits: '7000000000', tokenHuman: '7000.000000' });

    await settleOpenBet(ws, r.body.betId);
    s = await api('GET', '/api/state');
    expect(s.body.openBet).toBeNull();
    expect(s.body.lastBet).toMatchObject({
      id: r.body.betId,
      status: 'closed',
      statusCode: 1,
      result: 'payout_done',
      retryAfterSeconds: null,
      exitPrice: 17_000_000_000,
    });
    ws.close();
  });
});

describe('side spellings and bad bodies', () => {
  it.each([
    ['UP', 'UP'],
    ['up', 'UP'],
    ['Up', 'UP'],
    [0, 'UP'],
    ['0', 'UP'],
    ['DOWN', 'DOWN'],
    ['down', 'DOWN'],
    ['Down', 'DOWN'],
    [1, 'DOWN'],
    ['1', 'DOWN'],
  ])('accepts side %j as %s', async (side, expected) => {
    const ws = new EventClient(stack.wsUrl);
    await ws.opened;
    await stack.tick('150.00');
    await expect.poll(async () => (await api('GET', '/api/price')).body.price).toBe('150.00000000'); // not an older, still fresh tick
    const r = await api('POST', '/api/bet', { side });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ accepted: true, side: expected });
    await settleOpenBet(ws, r.body.betId);
    ws.close();
  });

  it.each([[{}], [{ side: 'SIDEWAYS' }], [{ side: 2 }], [{ side: '2' }], [{ side: null }], [{ side: 'uP ' }]])('answers 400 for %j', async (body) => {
    const r = await api('POST', '/api/bet', body);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/0\/UP or 1\/DOWN/);
  });

  it('answers 400 for a body that is not JSON', async () => {
    const r = await api('POST', '/api/bet', 'side=UP', { 'Content-Type': 'application/json' });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/invalid JSON body/i);
  });

  it('answers 400 for an invalid address on /balance and /faucet', async () => {
    for (const path of ['/api/balance/not-a-key', '/api/faucet/not-a-key', '/balance/0OIl']) {
      const r = await api('GET', path);
      expect(r.status).toBe(400);
      expect(typeof r.body.error).toBe('string');
    }
  });
});

describe('amount rule at its clamps', () => {
  it('takes floor(balance x percent / 100), clamped to minAmount and maxAmount', async () => {
    const w = await call(stack.base, 'POST', '/api/wallet');
    const bettor = w.body.address as string;
    await api('GET', `/api/faucet/${bettor}`);
    await stack.restartGateway('SIGTERM', { GW_FIXED_BETTOR: bettor, GW_BET_PERCENT: '1' });
    let s = await api('GET', '/api/state');
    expect(s.body).toMatchObject({ bettor, betPercent: 1, betAmountUnits: '100000000' }); // exactly 1 % of 10000 tokens

    // lose 100 tokens: 1 % of 9900 tokens is 99 tokens, below minAmount -> minAmount
    const ws = new EventClient(stack.wsUrl);
    await ws.opened;
    await stack.tick('150.00');
    await expect.poll(async () => (await api('GET', '/api/price')).body.price).toBe('150.00000000'); // not an older, still fresh tick
    await expect.poll(async () => (await api('GET', '/api/state')).body.canBet).toBe(true);
    const r = await api('POST', '/api/bet', { side: 'DOWN' });
    expect(r.body).toMatchObject({ accepted: true, amountUnits: '100000000' });
    await settleOpenBet(ws, r.body.betId); // exit 170 > entry 150: DOWN loses
    ws.close();
    s = await api('GET', '/api/state');
    expect(s.body.balance.tokenUnits).toBe('9900000000');
    expect(s.body.betAmountUnits).toBe('100000000');

    // 100 %: the whole balance while below maxAmount, then maxAmount
    await stack.restartGateway('SIGTERM', { GW_BET_PERCENT: '100' });
    s = await api('GET', '/api/state');
    expect(s.body).toMatchObject({ betPercent: 100, betAmountUnits: '9900000000', betAmountHuman: '9900.000000' });
    await api('GET', `/api/faucet/${bettor}`);
    s = await api('GET', '/api/state');
    expect(s.body.balance.tokenUnits).toBe('19900000000');
    expect(s.body).toMatchObject({ betAmountUnits: '10000000000', betAmountHuman: '10000.000000' });
  });
});
