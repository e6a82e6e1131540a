/**
 * Profile B, black box, with the bettor the gateway creates itself when GW_FIXED_BETTOR is unset
 * (docs/gateway-api.md#profile-b-post-apibet): the refusal codes in priority order, the amount rule between and at both clamps,
 * the decision object and `/state` agreeing, the bettor remembered across restarts. Real gateway process, real NATS/Redis, local chain process.
 * Contract limits are raised so that one faucet grant (10000 tokens) is below minAmount:
 * min 15000 tokens, max 25000 tokens, GW_BET_PERCENT 60.
 */
import { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFUSAL_TEXT } from '../../runtime/gateway/profile-b/decision.ts';
import { call, EventClient, startGatewayStack, until, type GatewayStack } from '../support/gateway-stack.ts';
import { BASE58_ADDRESS } from '../../kernel/schemas.ts';

const MIN = 15_000_000_000n;
const MAX = 25_000_000_000n;
let stack: GatewayStack;
let bettor: string;
const api = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => call(stack.base, method, path, body, headers);
const state = async () => {
  const r = await api('GET', '/api/state');
  expect(r.status).toBe(200);
  return r.body;
};
const refusedWith = (code: keyof typeof REFUSAL_TEXT, retryAfterSeconds: number | null = null) => ({
  accepted: false,
  reasonCode: code,
  reason: REFUSAL_TEXT[code],
  retryAfterSeconds,
  betId: null,
  txSig: null,
});

beforeAll(async () => {
  stack = await startGatewayStack({ GW_PROFILE: 'B', GW_MIN_AMOUNT: String(MIN), GW_MAX_AMOUNT: String(MAX), GW_BET_PERCENT: '60' });
  bettor = (await state()).bettor;
}, 180_000);

afterAll(async () => {
  await stack?.stop();
});

async function restartWith(fixedBettor: string | undefined): Promise<void> {
  if (fixedBettor) stack.gatewayEnv.GW_FIXED_BETTOR = fixedBettor;
  else delete stack.gatewayEnv.GW_FIXED_BETTOR;
  await stack.restartGateway('SIGTERM');
}

describe('refusals in priority order', () => {
  it('NO_PRICE before anything about the wallet; /state and POST /bet agree', async () => {
    const s = await state();
    expect(s).toMatchObject({
      bettor: expect.stringMatching(BASE58_ADDRESS),
      betPercent: 60,
      betAmountUnits: MIN.toString(), // zero balance: minAmount
      betAmountHuman: '15000.000000',
      canBet: false,
      canBetReasonCode: 'NO_PRICE',
      canBetReason: REFUSAL_TEXT.NO_PRICE,
      balance: { sol: 0, solLamports: 0, tokenUnits: '0', tokenHuman: '0.000000' },
      openBet: null,
      lastBet: null,
      minAmount: MIN.toString(),
      maxAmount: MAX.toString(),
    });
    const r = await api('POST', '/api/bet', { side: 'UP' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(refusedWith('NO_PRICE'));
  });

  it('WALLET_UNKNOWN for a bettor outside the key store, before its missing SOL', async () => {
    await stack.tick('150.00');
    await restartWith(Keypair.generate().publicKey.toBase58());
    await stack.tick('150.00');
    expect((await api('POST', '/api/bet', { side: 'UP' })).body).toEqual(refusedWith('WALLET_UNKNOWN'));
    expect((await state()).canBetReasonCode).toBe('WALLET_UNKNOWN');
  });

  it('POST /wallet with an empty body registers a key the gateway can then bet with', async () => {
    const w = await fetch(`${stack.base}/api/wallet`, { method: 'POST' });
    expect(w.status).toBe(200);
    const { address } = (await w.json()) as { address: string };
    expect(address).toMatch(BASE58_ADDRESS);
    await restartWith(address);
    await stack.tick('150.00');
    const s = await state();
    expect(s.bettor).toBe(address);
    expect(s.canBetReasonCode).toBe('INSUFFICIENT_SOL');
  });

  it('the gateway-created bettor is remembered across restarts when GW_FIXED_BETTOR is unset', async () => {
    await restartWith(undefined);
    await stack.tick('150.00');
    expect((await state()).bettor).toBe(bettor);
  });

  it('INSUFFICIENT_SOL for a known wallet without SOL', async () => {
    expect((await api('POST', '/api/bet', { side: 'UP' })).body).toEqual(refusedWith('INSUFFICIENT_SOL'));
  });

  it('INSUFFICIENT_FUNDS below minAmount, the amount clamped up to minAmount', async () => {
    expect((await api('GET', `/api/faucet/${bettor}`)).status).toBe(200);
    const s = await state();
    expect(s.balance).toEqual({ sol: 5, solLamports: 5_000_000_000, tokenUnits: '10000000000', tokenHuman: '10000.000000' });
    expect(s.betAmountUnits).toBe(MIN.toString()); // floor(10000e6 * 60 / 100) = 6000e6 < min
    expect(s.canBetReasonCode).toBe('INSUFFICIENT_FUNDS');
    expect((await api('POST', '/api/bet', { side: 'UP' })).body).toEqual(refusedWith('INSUFFICIENT_FUNDS'));
  });

  it('the amount is floor(balance * percent / 100) between the clamps, and maxAmount above', async () => {
    await api('GET', `/api/faucet/${bettor}`);
    await api('GET', `/api/faucet/${bettor}`);
    let s = await state();
    expect(s.balance.tokenUnits).toBe('30000000000');
    expect(s).toMatchObject({ betAmountUnits: '18000000000', betAmountHuman: '18000.000000', canBet: true, canBetReasonCode: null, canBetReason: null });
    await api('GET', `/api/faucet/${bettor}`);
    await api('GET', `/api/faucet/${bettor}`);
    s = await state();
    expect(s.balance.tokenUnits).toBe('50000000000');
    expect(s.betAmountUnits).toBe(MAX.toString()); // 30000e6 > max
  });
});

describe('accepted bets', () => {
  let ws: EventClient;
  let price = 150;
  beforeAll(async () => {
    ws = new EventClient(stack.wsUrl);
    await ws.opened;
  });
  afterAll(() => ws.close());

  /** Places one bet with `side`, checks the decision object, then settles it as a win for the bettor. */
  async function betAndWin(side: unknown, expected: 'UP' | 'DOWN', extra: Record<string, unknown> = {}) {
    await stack.tick(price.toFixed(2));
    const before = await state();
    expect(before.canBet).toBe(true);
    const r = await api('POST', '/api/bet', { side, ...extra });
    expect(r.status).toBe(200);
    const d = r.body;
    expect(d).toEqual({
      accepted: true,
      reasonCode: null,
      reason: null,
      retryAfterSeconds: 3,
      betId: expect.stringMatching(/^\d+$/),
      txSig: expect.any(String),
      amountUnits: before.betAmountUnits,
      amountHuman: before.betAmountHuman,
      side: expected,
      entryPrice: Math.round(price * 1e8),
      expireTime: expect.any(Number),
      id: d.betId,
      tx: d.txSig,
      bettor,
    });
    const open = await ws.waitFor((e) => e.type === 'bet_open' && e.id === d.betId);
    expect(open).toMatchObject({ bettor, side: expected, amountUnits: d.amountUnits, entryPrice: d.entryPrice, expireTime: d.expireTime });

    // one open bet for the fixed bettor: OPEN_BET with the seconds left, and /state shows it
    const again = await api('POST', '/api/bet', { side });
    expect(again.body).toMatchObject({ accepted: false, reasonCode: 'OPEN_BET', reason: REFUSAL_TEXT.OPEN_BET, betId: null, txSig: null });
    expect(again.body.retryAfterSeconds).toBeGreaterThanOrEqual(0);
    expect(again.body.retryAfterSeconds).toBeLessThanOrEqual(3);
    const s = await state();
    expect(s).toMatchObject({ canBet: false, canBetReasonCode: 'OPEN_BET', lastBet: null });
    expect(s.openBet).toMatchObject({
      id: d.betId,
      status: 'open',
      statusCode: 0,
      result: null,
      side: expected,
      amountUnits: d.amountUnits,
      exitPrice: 0,
      expireTime: d.expireTime,
    });

    // exit price = the last tick at or before expireTime (docs/decisions.md#entry-and-exit-prices), so move the price just before it
    price += expected === 'UP' ? 1 : -1;
    await until(d.expireTime * 1000 - 300);
    await stack.tick(price.toFixed(2), d.expireTime * 1000 - 1);
    await until(d.expireTime * 1000 + 50);
    await stack.tick(price.toFixed(2));
    const closed = await ws.waitFor((e) => e.type === 'bet_closed' && e.id === d.betId);
    expect(closed).toMatchObject({ bettor, status: 1, statusName: 'payout_done', exitPrice: Math.round(price * 1e8) });
    const after = await state();
    expect(after.openBet).toBeNull();
    expect(after.lastBet).toMatchObject({ id: d.betId, status: 'closed', statusCode: 1, result: 'payout_done', retryAfterSeconds: null });
    return d;
  }

  it.each([
    ['up', 'UP'],
    [1, 'DOWN'],
  ] as const)('side %j is accepted as %s, settles, and the next bet takes the new balance', async (side, expected) => {
    await betAndWin(side, expected);
  });

  it('ignores address and amountUnits in the body: the bet is the fixed bettor at the rule amount', async () => {
    const other = Keypair.generate().publicKey.toBase58();
    const d = await betAndWin('UP', 'UP', { address: other, amountUnits: '100000000' });
    expect(d.bettor).toBe(bettor);
    expect(BigInt(d.amountUnits)).toBeGreaterThanOrEqual(MIN);
  });
});

describe('bad bodies (400)', () => {
  it.each([
    ['unknown side', { side: 'SIDEWAYS' }],
    ['side 2', { side: 2 }],
    ['side UP with spaces', { side: ' UP' }],
    ['missing side', {}],
    ['array body', [1]],
  ])('%s', async (_, body) => {
    const r = await api('POST', '/api/bet', body);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/0\/UP or 1\/DOWN/);
  });

  it('a body that is not JSON says invalid JSON body', async () => {
    const r = await api('POST', '/api/bet', '{side:', { 'Content-Type': 'application/json' });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/invalid JSON body/);
  });

  it('balance and faucet answer 400 for an invalid address', async () => {
    for (const path of ['/api/balance/not-a-key', '/api/faucet/not-a-key', '/balance/0OIl']) {
      const r = await api('GET', path);
      expect(r.status).toBe(400);
      expect(typeof r.body.error).toBe('string');
    }
  });
});
