import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../test/support/manual-clock.ts';
import { decodePriceTick, encodePriceTick } from './messages.ts';
import type { PriceTick } from './port.ts';
import { seededRandom } from './random.ts';
import { centsToDecimal, SyntheticPriceFeed } from './synthetic-price.ts';

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
    expect(ticks).toEqual([{ symbol: 'solusdt', price: '150.00', ts: start }]);
  });

  it('is reproducible from its seed', async () => {
    const a = await simulate(42, 60_000);
    const b = await simulate(42, 60_000);
    const c = await simulate(43, 60_000);
    expect(a.ticks).toEqual(b.ticks);
    expect(a.ticks).not.toEqual(c.ticks);
  });

  it('spaces ticks about 0.5 s apart (median) with occasional gaps of a few seconds (gateway spec §1.4)', async () => {
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

  it('quotes prices on the 0.01 tick, around 150, valid on the wire', async () => {
    const { ticks } = await simulate(3, 2 * HOUR);
    for (const t of ticks) {
      expect(t.price).toMatch(/^\d+\.\d{2}$/);
      expect(decodePriceTick(encodePriceTick(t))).toEqual({ ok: true, value: t });
    }
    const prices = ticks.map((t) => Number(t.price));
    expect(Math.min(...prices)).toBeGreaterThan(140);
    expect(Math.max(...prices)).toBeLessThan(160);
    // it does move
    expect(new Set(ticks.map((t) => t.price)).size).toBeGreaterThan(20);
  });

  it.each([11, 12, 13, 14])('ends roughly a third of 15 s windows on the entry price (seed %i)', async (seed) => {
    const { ticks, start, clock } = await simulate(seed, 6 * HOUR);
    // entry: latest tick at bet time; exit: last tick with ts <= expiry (design: "Rules the specs leave open")
    let i = 0;
    const priceAt = (t: number): string => {
      while (ticks[i + 1] && ticks[i + 1]!.ts <= t) i++;
      return ticks[i]!.price;
    };
    let windows = 0;
    let ties = 0;
    for (let bet = start + 1_234; bet + 15_000 <= clock.now(); bet += 15_000) {
      windows++;
      if (priceAt(bet) === priceAt(bet + 15_000)) ties++;
    }
    expect(windows).toBeGreaterThan(1_000);
    expect(ties / windows).toBeGreaterThan(0.2);
    expect(ties / windows).toBeLessThan(0.45);
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
      if (++seen === 3) void feed.stop();
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

describe('centsToDecimal', () => {
  it.each([
    [15012, '150.12'],
    [15000, '150.00'],
    [15001, '150.01'],
    [1, '0.01'],
    [9_700_010, '97000.10'],
  ])('%i cents is %s', (cents, text) => expect(centsToDecimal(cents)).toBe(text));
});
