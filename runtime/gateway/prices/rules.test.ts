import { describe, expect, it } from 'vitest';
import { decideEntryPrice, decideExitPrice, formatE8, formatPrice, InvalidPrice, PRICE_RULES, priceToE8 } from './rules.ts';
import type { Tick } from '../../../adapters/feed/port.ts';

const tick = (price: string, ts: number): Tick => ({ price, ts });

describe('priceToE8', () => {
  it.each([
    ['150', 15_000_000_000n],
    ['150.1', 15_010_000_000n],
    ['150.12345678', 15_012_345_678n],
    ['0.00000001', 1n],
    ['00012.5', 1_250_000_000n],
    ['99999999999.99999999', 9_999_999_999_999_999_999n],
  ])('%s -> %s exactly', (s, e8) => {
    expect(priceToE8(s)).toBe(e8);
  });

  it('rounds a 9th fraction digit half-up', () => {
    expect(priceToE8('150.123456784')).toBe(15_012_345_678n);
    expect(priceToE8('150.123456785')).toBe(15_012_345_679n);
    expect(priceToE8('150.1234567849999')).toBe(15_012_345_678n);
    expect(priceToE8('0.999999995')).toBe(100_000_000n);
    expect(priceToE8('0.000000005')).toBe(1n);
  });

  it('accepts finite positive numbers through their decimal form', () => {
    expect(priceToE8(150.12)).toBe(15_012_000_000n);
    expect(priceToE8(0.1 + 0.2)).toBe(30_000_000n); // 0.30000000000000004 rounds at digit 8
    expect(priceToE8(1e-7)).toBe(10n);
    expect(priceToE8(2)).toBe(200_000_000n);
  });

  it.each(['', '0', '0.000000004', '-1', '+1', '1e3', '0x10', '1.', '.5', ' 1', '1,5', 'NaN', 'Infinity'])('rejects %j', (s) => {
    expect(() => priceToE8(s)).toThrow(InvalidPrice);
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY, 1e-9, 1e21])('rejects number %s', (n) => {
    expect(() => priceToE8(n)).toThrow(InvalidPrice);
  });
});

describe('formatE8 / formatPrice', () => {
  it('always prints 8 fraction digits', () => {
    expect(formatE8(15_012_345_678n)).toBe('150.12345678');
    expect(formatE8(1n)).toBe('0.00000001');
    expect(formatE8(15_000_000_000n)).toBe('150.00000000');
    expect(formatE8(0n)).toBe('0.00000000');
    expect(formatE8(-5n)).toBe('-0.00000005');
    expect(formatPrice('150.1')).toBe('150.10000000');
    expect(formatPrice(137.5)).toBe('137.50000000');
  });

  it('round-trips every 8-digit string', () => {
    for (const s of ['1.00000000', '123.45678901', '0.10000001', '98765.43210000']) expect(formatE8(priceToE8(s))).toBe(s);
  });
});

describe('decideEntryPrice', () => {
  const now = 1_763_700_000_000;
  it('refuses without any tick', () => {
    expect(decideEntryPrice(undefined, now)).toEqual({ kind: 'no_price', reason: 'none' });
  });
  it('uses the latest tick up to exactly 30 s old', () => {
    const t = tick('150.5', now - PRICE_RULES.maxTickAgeMs);
    expect(decideEntryPrice(t, now)).toEqual({ kind: 'price', value: 15_050_000_000n, tick: t });
  });
  it('refuses a tick 30 s + 1 ms old', () => {
    expect(decideEntryPrice(tick('150.5', now - PRICE_RULES.maxTickAgeMs - 1), now)).toEqual({ kind: 'no_price', reason: 'stale' });
  });
  it('uses a tick stamped slightly in the future (clock skew)', () => {
    expect(decideEntryPrice(tick('1', now + 500), now).kind).toBe('price');
  });
});

describe('decideExitPrice', () => {
  const expireTime = 1_763_700_000;
  const T = expireTime * 1000;
  const before = tick('150.00000001', T - 400);
  const at = tick('150.00000002', T);
  const after = tick('150.00000003', T + 300);

  it('waits while the bet has not expired', () => {
    expect(decideExitPrice({ expireTime, nowMs: T - 1, atOrBefore: before, latest: after })).toEqual({ kind: 'wait', reason: 'not_expired' });
  });

  it('takes the last tick <= expiry as soon as a tick after expiry arrived', () => {
    expect(decideExitPrice({ expireTime, nowMs: T, atOrBefore: before, latest: after })).toEqual({ kind: 'price', value: 15_000_000_001n, tick: before });
  });

  it('a tick exactly at expiry both prices the bet and makes it ready', () => {
    expect(decideExitPrice({ expireTime, nowMs: T, atOrBefore: at, latest: at })).toEqual({ kind: 'price', value: 15_000_000_002n, tick: at });
  });

  it('without a later tick waits until 2 s after expiry, then takes the last tick', () => {
    const inputs = { expireTime, atOrBefore: before, latest: before };
    expect(decideExitPrice({ ...inputs, nowMs: T + PRICE_RULES.exitGraceMs - 1 })).toEqual({ kind: 'wait', reason: 'awaiting_tick' });
    expect(decideExitPrice({ ...inputs, nowMs: T + PRICE_RULES.exitGraceMs })).toEqual({ kind: 'price', value: 15_000_000_001n, tick: before });
  });

  it('uses a tick exactly 30 s older than expiry, never one 30 s + 1 ms older', () => {
    const edge = tick('149', T - PRICE_RULES.maxTickAgeMs);
    expect(decideExitPrice({ expireTime, nowMs: T + 5_000, atOrBefore: edge, latest: after })).toMatchObject({ kind: 'price', value: 14_900_000_000n });
    const old = tick('149', T - PRICE_RULES.maxTickAgeMs - 1);
    expect(decideExitPrice({ expireTime, nowMs: T + 5_000, atOrBefore: old, latest: after })).toEqual({ kind: 'wait', reason: 'stale' });
  });

  it('waits when there is no tick at or before expiry at all', () => {
    expect(decideExitPrice({ expireTime, nowMs: T + 5_000, atOrBefore: undefined, latest: after })).toEqual({ kind: 'wait', reason: 'none' });
    expect(decideExitPrice({ expireTime, nowMs: T + 5_000, atOrBefore: undefined, latest: undefined })).toEqual({ kind: 'wait', reason: 'none' });
  });

  it('signed prices: waits for a tick after expiry (the close carries it), with no grace; one at expiry is not after it', () => {
    const signed = { expireTime, atOrBefore: at, signed: true };
    expect(decideExitPrice({ ...signed, latest: at, nowMs: T + 60_000 })).toEqual({ kind: 'wait', reason: 'awaiting_tick' });
    expect(decideExitPrice({ ...signed, latest: after, nowMs: T + 300 })).toEqual({ kind: 'price', value: 15_000_000_002n, tick: at });
    expect(decideExitPrice({ ...signed, latest: at, nowMs: T + PRICE_RULES.refundAfterMs })).toEqual({ kind: 'refund_at_entry' });
  });

  it('refunds at entry once 300 s passed without a usable price, not 1 ms earlier', () => {
    const old = tick('149', T - 60_000);
    const base = { expireTime, atOrBefore: old, latest: old };
    expect(decideExitPrice({ ...base, nowMs: T + PRICE_RULES.refundAfterMs - 1 })).toEqual({ kind: 'wait', reason: 'stale' });
    expect(decideExitPrice({ ...base, nowMs: T + PRICE_RULES.refundAfterMs })).toEqual({ kind: 'refund_at_entry' });
    expect(decideExitPrice({ expireTime, atOrBefore: undefined, latest: undefined, nowMs: T + PRICE_RULES.refundAfterMs })).toEqual({
      kind: 'refund_at_entry',
    });
  });

  it('still prices a bet late when a usable tick exists (refund only without one)', () => {
    expect(decideExitPrice({ expireTime, nowMs: T + PRICE_RULES.refundAfterMs + 10, atOrBefore: before, latest: after })).toMatchObject({ kind: 'price' });
  });

  it('ignores an atOrBefore tick that is actually after expiry (caller mistake guard)', () => {
    expect(decideExitPrice({ expireTime, nowMs: T + 5_000, atOrBefore: after, latest: after })).toEqual({ kind: 'wait', reason: 'stale' });
  });
});
