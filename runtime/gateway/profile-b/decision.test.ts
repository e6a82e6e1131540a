import { describe, expect, it } from 'vitest';
import { betAmount, decide, REFUSAL_CODES, REFUSAL_TEXT, retryAfterSeconds, type DecisionFacts } from './decision.ts';

const MIN = 100_000_000n;
const MAX = 10_000_000_000n;

describe('Profile B amount rule', () => {
  it.each([
    [10_000_000_000n, 30, 3_000_000_000n],
    [1_000_000_000n, 30, 300_000_000n],
    [333_333_333n, 30, 100_000_000n], // floor(99_999_999.9) -> below min -> min
    [333_333_334n, 30, 100_000_000n], // floor(100_000_000.2)
    [100_000_000_000n, 30, MAX], // 30 000 000 000 clamped to max
    [0n, 30, MIN],
    [1n, 30, MIN],
    [999n, 100, MIN],
    [12_345_678_901n, 7, 864_197_523n], // floor(864197523.07)
  ])('balance %s at %s%% -> %s', (balance, pct, amount) => {
    expect(betAmount(balance, pct, MIN, MAX)).toBe(amount);
  });

  it('uses minAmount for an unparsable or missing balance', () => {
    for (const bad of ['abc', '', '-5', '1.5', null, undefined]) expect(betAmount(bad, 30, MIN, MAX)).toBe(MIN);
    expect(betAmount('1000000000', 30, MIN, MAX)).toBe(300_000_000n);
  });
});

describe('Profile B decision', () => {
  const now = 1_763_700_000_000;
  const ok: DecisionFacts = {
    initialized: true,
    paused: false,
    hasPrice: true,
    openBet: null,
    walletKnown: true,
    lamports: 5_000_000_000n,
    tokenUnits: 10_000_000_000n,
    minAmount: MIN,
  };

  it('accepts when nothing matches', () => {
    expect(decide(ok, now)).toEqual({ ok: true });
  });

  it('checks refusals in the spec priority order: each code wins over every later one', () => {
    const breakers: Record<string, Partial<DecisionFacts>> = {
      NOT_INITIALIZED: { initialized: false },
      PAUSED: { paused: true },
      NO_PRICE: { hasPrice: false },
      OPEN_BET: { openBet: { id: 7n, expireTime: BigInt(now / 1000 + 10) } },
      WALLET_UNKNOWN: { walletKnown: false },
      INSUFFICIENT_SOL: { lamports: 9_999_999n },
      INSUFFICIENT_FUNDS: { tokenUnits: MIN - 1n },
    };
    REFUSAL_CODES.forEach((code, i) => {
      // break this rule and every later one: this code must still win
      let facts: DecisionFacts = { ...ok };
      for (const later of REFUSAL_CODES.slice(i)) facts = { ...facts, ...breakers[later] };
      const d = decide(facts, now);
      expect(d).toMatchObject({ ok: false, code, message: REFUSAL_TEXT[code] });
    });
  });

  it('gives retryAfterSeconds only for OPEN_BET', () => {
    const open = decide({ ...ok, openBet: { id: 7n, expireTime: BigInt(now / 1000 + 10) } }, now);
    expect(open).toMatchObject({ ok: false, code: 'OPEN_BET', retryAfterSeconds: 10, openBetId: 7n });
    const noSol = decide({ ...ok, lamports: 0n }, now);
    expect(noSol).toMatchObject({ ok: false, code: 'INSUFFICIENT_SOL', retryAfterSeconds: null });
  });

  it('treats exactly the thresholds as enough', () => {
    expect(decide({ ...ok, lamports: 10_000_000n, tokenUnits: MIN }, now)).toEqual({ ok: true });
    expect(decide({ ...ok, tokenUnits: null }, now)).toMatchObject({ code: 'INSUFFICIENT_FUNDS' });
  });

  it('retryAfterSeconds = ceil((expireTime*1000 - now)/1000), min 0', () => {
    expect(retryAfterSeconds(1000n, 990_001)).toBe(10);
    expect(retryAfterSeconds(1000n, 990_000)).toBe(10);
    expect(retryAfterSeconds(1000n, 999_999)).toBe(1);
    expect(retryAfterSeconds(1000n, 1_000_000)).toBe(0);
    expect(retryAfterSeconds(1000n, 1_005_000)).toBe(0);
  });

  it('has Russian text for every code', () => {
    for (const code of REFUSAL_CODES) expect(REFUSAL_TEXT[code]).toMatch(/[а-яё]/i);
  });
});
