import { Decimal } from 'decimal.js';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../test/support/manual-clock.ts';
import { checkBook, decodeBook, encodeBook } from './messages.ts';
import { type BookSnapshot } from './port.ts';
import { seededRandom } from './random.ts';
import { BOOK_MARKETS, SyntheticBookFeed } from './synthetic-book.ts';
import { BOOK_SYMBOLS, type BookSymbol } from '../../kernel/domain.ts';

const quiet = pino({ level: 'silent' });

async function simulate(seed: number, ms: number, intervalMs = 500) {
  const clock = new ManualClock();
  const feed = new SyntheticBookFeed({ clock, intervalMs, random: seededRandom(seed), logger: quiet });
  const books: BookSnapshot[] = [];
  feed.onBook((b) => books.push(b));
  const start = clock.now();
  await feed.start();
  clock.advance(ms);
  return { books, start, clock, feed };
}

const of = (books: BookSnapshot[], symbol: BookSymbol) => books.filter((b) => b.symbol === symbol);
const spreadTicks = (b: BookSnapshot) => new Decimal(b.asks[0]![0]).minus(b.bids[0]![0]).div('0.01').toNumber();
const mid = (b: BookSnapshot) => new Decimal(b.asks[0]![0]).plus(b.bids[0]![0]).div(2).toNumber();

describe('SyntheticBookFeed', () => {
  it('publishes a book of every symbol at start, then every interval, stamped with the clock', async () => {
    const { books, start } = await simulate(1, 2_000);
    expect(books.slice(0, 3).map((b) => b.symbol)).toEqual([...BOOK_SYMBOLS]);
    expect(books.slice(0, 3).every((b) => b.ts === start)).toBe(true);
    // start + 4 refreshes in 2 s
    expect(books.length).toBe(15);
    expect([...new Set(books.map((b) => b.ts - start))]).toEqual([0, 500, 1000, 1500, 2000]);
  });

  it('keeps 20 sorted, uncrossed levels with positive decimals, valid on the wire', async () => {
    const { books } = await simulate(2, 10 * 60_000);
    expect(books.length).toBe(3 * 1201);
    const faults: string[] = [];
    for (const b of books) {
      if (b.bids.length !== 20 || b.asks.length !== 20) faults.push(`${b.symbol}@${b.ts}: depth ${b.bids.length}/${b.asks.length}`);
      const checked = checkBook(b);
      if (!checked.ok) faults.push(`${b.symbol}@${b.ts}: ${checked.reason}`);
      const wire = decodeBook(encodeBook(b), b.symbol);
      if (!wire.ok || JSON.stringify(wire.value) !== JSON.stringify(b)) faults.push(`${b.symbol}@${b.ts}: wire round trip`);
      for (const [price, qty] of [...b.bids, ...b.asks]) {
        if (!/^\d+\.\d{2}$/.test(price) || !/^\d+\.\d+$/.test(qty)) faults.push(`${b.symbol}@${b.ts}: level ${price} ${qty}`);
      }
    }
    expect(faults).toEqual([]);
  });

  it.each(BOOK_SYMBOLS.map((s) => [s, BOOK_MARKETS[s].mid] as const))('%s trades near %d and moves in time', async (symbol, level) => {
    const { books } = await simulate(3, 30 * 60_000);
    const mids = of(books, symbol).map(mid);
    expect(Math.min(...mids)).toBeGreaterThan(level * 0.95);
    expect(Math.max(...mids)).toBeLessThan(level * 1.05);
    // consecutive books differ most of the time
    const moved = mids.slice(1).filter((m, i) => m !== mids[i]).length;
    expect(moved / (mids.length - 1)).toBeGreaterThan(0.5);
  });

  it('has a spread of one tick mostly, a few ticks sometimes, and varying sizes', async () => {
    const { books } = await simulate(4, 10 * 60_000);
    const spreads = books.map(spreadTicks);
    expect(Math.min(...spreads)).toBe(1);
    expect(Math.max(...spreads)).toBeGreaterThan(1);
    expect(Math.max(...spreads)).toBeLessThanOrEqual(5);
    expect(spreads.filter((s) => s === 1).length / spreads.length).toBeGreaterThan(0.5);
    const topSizes = of(books, 'BTCUSDT').map((b) => b.bids[0]![1]);
    expect(new Set(topSizes).size).toBeGreaterThan(topSizes.length / 2);
  });

  it('stops: no timer left and no book after stop()', async () => {
    const { books, clock, feed } = await simulate(5, 1_000);
    await feed.stop();
    expect(clock.pending).toBe(0);
    const count = books.length;
    clock.advance(10_000);
    expect(books.length).toBe(count);
  });

  it('can be stopped from inside a listener', async () => {
    const clock = new ManualClock();
    const feed = new SyntheticBookFeed({ clock, random: seededRandom(6), logger: quiet });
    let seen = 0;
    feed.onBook(() => {
      if (++seen === 4) feed.stop().catch(() => undefined);
    });
    await feed.start();
    clock.advance(10_000);
    expect(seen).toBe(6); // the refresh that stopped it still hands out its three books
    expect(clock.pending).toBe(0);
  });
});
