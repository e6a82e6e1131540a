import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../test/support/manual-clock.ts';
import { decodePriceTick, encodePriceTick } from './messages.ts';
import type { PriceTick } from './port.ts';
import { seededRandom } from './random.ts';
import { SyntheticPriceFeed } from './synthetic-price.ts';

const quiet = pino({ level: 'silent' });

/** Runs a synthetic feed for `ms` of simulated time and returns every tick. */
async function simulate(seed: number, ms: number): Promise<{ ticks: PriceTick[]; start: number; clock: ManualClock; feed: SyntheticPriceFeed }> {
  const clock = new ManualClock();
  const feed = new SyntheticPriceFeed({ clock, random: seededRandom(seed), logger: quiet });
  const ticks: PriceTick[] = [];
  feed.onTick((t) => ticks.push(t));
  const start = clock.now();
  await feed.start();
  clock.advance(ms);
  return { ticks, start, clock, feed };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const HOUR = 3_600_000;

describe('SyntheticPriceFeed', () => {
  it('emits a first tick at start, stamped with the clock', async () => {
    const { ticks, start } = await simulate(1, 0);
    expect(ticks).toEqual([{ symbol: 'solusdt', price: '150.00000000', ts: start }]);
  });

  it('is reproducible from its seed', async () => {
    const a = await simulate(42, 60_000);
    const b = await simulate(42, 60_000);
    const c = await simulate(43, 60_000);
    expect(a.ticks).toEqual(b.ticks);
    expect(a.ticks).not.toEqual(c.ticks);
  });

  it('spaces ticks about 0.5 s apart (median) with occasional gaps of a few seconds (docs/gateway-api.md#price)', async () => {
    const { ticks } = await simulate(7, 2 * HOUR);
    const spacing = ticks.slice(1).map((t, i) => t.ts - ticks[i]!.ts);
    expect(median(spacing)).toBeGreaterThanOrEqual(400);
    expect(median(spacing)).toBeLessThanOrEqual(600);
    const gaps = spacing.filter((s) => s >= 2_000);
    expect(gaps.length / spacing.length).toBeGreaterThan(0.01);
    expect(gaps.length / spacing.length).toBeLessThan(0.06);
    expect(Math.max(...spacing)).toBeLessThanOrEqual(6_000);
    expect(Math.min(...spacing)).toBeGreaterThan(0);
  });

  it('quotes prices with 8 fraction digits, around 150, valid on the wire', async () => {
    const { ticks } = await simulate(3, 2 * HOUR);
    for (const t of ticks) {
      expect(t.price).toMatch(/^\d+\.\d{8}$/);
      expect(decodePriceTick(encodePriceTick(t))).toEqual({ ok: true, value: t });
    }
    const prices = ticks.map((t) => Number(t.price));
    expect(Math.min(...prices)).toBeGreaterThan(140);
    expect(Math.max(...prices)).toBeLessThan(160);
    // it does move
    expect(new Set(ticks.map((t) => t.price)).size).toBeGreaterThan(ticks.length * 0.99);
  });

  it.each([11, 12, 13, 14])("moves like SOL: 15 s windows almost never tie, and their log returns have SOL's volatility (seed %i)", async (seed) => {
    const { ticks, start, clock } = await simulate(seed, 6 * HOUR);
    // entry: latest tick at bet time; exit: last tick with ts <= expiry (docs/decisions.md#entry-and-exit-prices)
    let i = 0;
    const priceAt = (t: number): string => {
      while (ticks[i + 1] && ticks[i + 1]!.ts <= t) i++;
      return ticks[i]!.price;
    };
    const returns: number[] = [];
    let ties = 0;
    for (let bet = start + 1_234; bet + 15_000 <= clock.now(); bet += 15_000) {
      const entry = priceAt(bet);
      const exit = priceAt(bet + 15_000);
      if (entry === exit) ties++;
      returns.push(Math.log(Number(exit) / Number(entry)));
    }
    expect(returns.length).toBeGreaterThan(1_000);
    expect(ties / returns.length).toBeLessThan(0.01);
    // annualised: stdev of 15 s log returns x sqrt(windows per year); SOL trades at 60-100 % a year
    const mean = returns.reduce((a, b) => a + b, 0) / returns.length;
    const sd = Math.sqrt(returns.reduce((a, r) => a + (r - mean) ** 2, 0) / returns.length);
    const annual = sd * Math.sqrt((365 * 24 * 3600) / 15);
    expect(annual).toBeGreaterThan(0.5);
    expect(annual).toBeLessThan(1.2);
  });

  it('stops: no timer left and no tick after stop()', async () => {
    const { ticks, clock, feed } = await simulate(5, 10_000);
    expect(clock.pending).toBe(1);
    await feed.stop();
    expect(clock.pending).toBe(0);
    const count = ticks.length;
    clock.advance(60_000);
    expect(ticks.length).toBe(count);
  });

  it('can be stopped from inside a listener', async () => {
    const clock = new ManualClock();
    const feed = new SyntheticPriceFeed({ clock, random: seededRandom(9), logger: quiet });
    let seen = 0;
    feed.onTick(() => {
      if (++seen === 3) feed.stop().catch(() => undefined);
    });
    await feed.start();
    clock.advance(60_000);
    expect(seen).toBe(3);
    expect(clock.pending).toBe(0);
  });

  it('keeps feeding the other listeners when one throws, and honours unsubscribe', async () => {
    const clock = new ManualClock();
    const feed = new SyntheticPriceFeed({ clock, random: seededRandom(2), logger: quiet });
    const good: PriceTick[] = [];
    const gone: PriceTick[] = [];
    feed.onTick(() => {
      throw new Error('consumer bug');
    });
    feed.onTick((t) => good.push(t));
    const off = feed.onTick((t) => gone.push(t));
    await feed.start();
    off();
    clock.advance(30_000);
    expect(good.length).toBeGreaterThan(20);
    expect(gone.length).toBe(1);
  });

  it('runs on the real clock by default', async () => {
    const feed = new SyntheticPriceFeed({ random: seededRandom(1), logger: quiet });
    const ticks: PriceTick[] = [];
    const second = new Promise<void>((resolve) => feed.onTick((t) => ticks.push(t) === 2 && resolve()));
    const before = Date.now();
    await feed.start();
    await second;
    await feed.stop();
    expect(ticks[0]!.ts).toBeGreaterThanOrEqual(before);
    expect(ticks[1]!.ts).toBeGreaterThan(ticks[0]!.ts);
  });
});
