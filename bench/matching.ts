/**
 * Matching resting orders on book updates (docs/orders.md#resting-fills; goals: the µs per book
 * update at 1k, 10k and 100k resting orders within 2x of each other, fill-to-event p99 <= 20 ms).
 *
 * In-process order engine on a private Redis ledger. For each size, 100 accounts place N LIMIT_MAKER
 * orders over the three symbols and both sides: 10 per symbol and side rest near the top of the
 * book, the rest far below the bid / above the ask, where no book of the run reaches them. Then a
 * book per symbol arrives every 100 ms for BENCH_SECONDS (10), its mid moving flat, down 0.15 %,
 * flat, up 0.15 %: a dip reaches the near BUY orders and a spike the near SELL orders, with a thin
 * book (0.05 a level) so a few orders fill per crossing update, whatever N. Measured per update:
 * the synchronous work of taking the book in (book cache + engine matching and queuing the fills);
 * per fill: from the match to its `order` event, after its commit landed in Redis. Baseline (same
 * run, same books): the same updates with no resting order at all. Each size first streams
 * BENCH_WARMUP_SECONDS (2) of books that are not measured.
 * BENCH_MATCHING_SIZES (e.g. "1000,10000") overrides the sizes.
 */
import { createRedisExchangeStore } from '../adapters/store/exchange/redis.ts';
import type { BookSnapshot } from '../adapters/feed/port.ts';
import { BOOK_SYMBOLS, type BookSymbol } from '../kernel/domain.ts';
import { log } from '../kernel/log.ts';
import { dec } from '../machines/exchange/money.ts';
import { openAccount } from '../runtime/exchange/accounts.ts';
import { bookCache } from '../runtime/exchange/book-cache.ts';
import type { ExchangeContext } from '../runtime/exchange/context.ts';
import { createOrderEngine, type OrderEngine } from '../runtime/exchange/engine/engine.ts';
import { percentile, pool, report, sleep, type Row } from './support/measure.ts';
import { startBenchRedis } from './support/stack.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
// updates before the measured ones (compiling the hot paths), not reported
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const SIZES = (process.env.BENCH_MATCHING_SIZES ?? '1000,10000,100000').split(',').map(Number);
const ACCOUNTS = 100;
const NEAR = 10;
const MID: Record<BookSymbol, number> = { BTCUSDT: 60_000, ETHUSDT: 3_000, SOLUSDT: 150 };
const quiet = log.child({}, { level: 'silent' });

const price = (symbol: BookSymbol, factor: number) => (MID[symbol] * factor).toFixed(2);

/** A book of `symbol` around MID x `move`: 20 levels a side, `qty` each, 0.01 % apart. */
function bookAt(symbol: BookSymbol, move: number, qty: string, ts: number): BookSnapshot {
  const levels = (sign: 1 | -1) => Array.from({ length: 20 }, (_, i) => [price(symbol, move * (1 + sign * 0.0001 * (i + 1))), qty] as [string, string]);
  return { symbol, bids: levels(-1), asks: levels(1), ts };
}

/** An engine on its own Redis prefix with `accounts` funded accounts holding some of every asset. */
async function engineWith(url: string, prefix: string, onFill?: (matchedAt: number) => void) {
  const store = createRedisExchangeStore(url, prefix, quiet);
  const books = bookCache(30_000);
  const ctx: ExchangeContext = { store, books, now: () => new Date(), log: quiet };
  const engine = createOrderEngine(ctx, onFill ? { onFill } : {});
  let ts = Date.now();
  for (const s of BOOK_SYMBOLS) books.put(bookAt(s, 1, '100000', ts++));
  const ids: string[] = [];
  for (let i = 0; i < ACCOUNTS; i++) {
    const r = await openAccount(ctx, `bench-${i}`, dec('1000000000000'), dec('0.001'));
    if (!r.ok) throw new Error(r.message);
    ids.push(r.value.id);
  }
  await pool(ids, 16, async (accountId) => {
    for (const symbol of BOOK_SYMBOLS) {
      const r = await engine.place({ accountId, symbol, side: 'BUY', type: 'MARKET', quantity: '2000' });
      if (!r.ok) throw new Error(r.message);
    }
  });
  return { store, books, engine, ids };
}

/** Places `n` resting orders over the accounts: NEAR per symbol and side near the top, the rest far away. */
async function placeResting(engine: OrderEngine, ids: string[], n: number): Promise<void> {
  const specs = Array.from({ length: n }, (_, i) => {
    const symbol = BOOK_SYMBOLS[i % 3] as BookSymbol;
    const side = (Math.floor(i / 3) % 2 === 0 ? 'BUY' : 'SELL') as 'BUY' | 'SELL';
    const near = Math.floor(i / 6) < NEAR;
    const distance = near ? 0.001 : 0.01 + (0.2 * ((i * 7919) % 1000)) / 1000;
    return {
      symbol,
      side,
      price: price(symbol, side === 'BUY' ? 1 - distance : 1 + distance),
      quantity: near ? '1000' : '1',
      accountId: ids[i % ids.length] as string,
    };
  });
  await pool(specs, 64, async (s) => {
    const r = await engine.place({ ...s, type: 'LIMIT_MAKER' });
    if (!r.ok) throw new Error(`${r.code}: ${r.message}`);
  });
}

/** Books every 100 ms for `seconds`; µs of each update's synchronous work. */
async function streamBooks(ctx: { books: ReturnType<typeof bookCache>; engine: OrderEngine }, seconds = SECONDS): Promise<number[]> {
  const us: number[] = [];
  const moves = [1, 0.9985, 1, 1.0015];
  const end = performance.now() + seconds * 1000;
  for (let k = 0; performance.now() < end; k++) {
    for (const symbol of BOOK_SYMBOLS) {
      const book = bookAt(symbol, moves[k % moves.length] as number, '0.05', Date.now() + k);
      const t0 = performance.now();
      if (ctx.books.put(book)) ctx.engine.onBook(book);
      us.push((performance.now() - t0) * 1000);
    }
    await sleep(100);
  }
  await ctx.engine.settled();
  return us;
}

const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / Math.max(1, xs.length);

const redis = await startBenchRedis();
try {
  const rows: Row[] = [];
  const baselineSetup = await engineWith(redis.url, 'bench-matching-baseline');
  await streamBooks(baselineSetup, WARMUP);
  const baseline = await streamBooks(baselineSetup);
  await baselineSetup.store.close();
  for (const n of SIZES) {
    const latencies: number[] = [];
    const setup = await engineWith(redis.url, `bench-matching-${n}`, (matchedAt) => latencies.push(performance.now() - matchedAt));
    const placedAt = performance.now();
    await placeResting(setup.engine, setup.ids, n);
    const placing = (performance.now() - placedAt) / 1000;
    await streamBooks(setup, WARMUP);
    latencies.length = 0;
    const us = await streamBooks(setup);
    rows.push({
      measure: `book update with ${n} resting orders`,
      value: mean(us),
      unit: 'µs',
      baseline: { name: 'no resting orders', value: mean(baseline) },
      goal: 'within 2x of each other across sizes',
      detail:
        `p50 ${percentile(us, 50).toFixed(1)} µs, p99 ${percentile(us, 99).toFixed(1)} µs (baseline p50 ${percentile(baseline, 50).toFixed(1)}, p99 ${percentile(baseline, 99).toFixed(1)}); ` +
        `${us.length} updates, ${latencies.length} fills landed; fill-to-event p50 ${percentile(latencies, 50).toFixed(2)} ms, p99 ${percentile(latencies, 99).toFixed(2)} ms (goal <= 20 ms); ` +
        `${setup.engine.restingCount} still resting; placing took ${placing.toFixed(1)} s`,
    });
    setup.engine.stop();
    await setup.store.close();
  }
  report(`order engine matching on book updates (3 books every 100 ms, ${SECONDS} s per size, ledger on Redis)`, rows);
} finally {
  await redis.stop();
}
