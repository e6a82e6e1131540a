/**
 * Property-based tests over random sequences of orders, deposits, withdrawals, cash resets
 * and book changes, on both stores: the journal replays to the stored balances exactly, fees
 * add up to what was charged, cash and positions follow an independent model, and
 * pnl = equity - (initialCash + netDeposits) = realizedPnl + unrealizedPnl.
 */
import fc from 'fast-check';
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BookSnapshot } from '../../adapters/feed/port.ts';
import { createMemoryExchangeStore } from '../../adapters/store/exchange/memory.ts';
import type { ExchangeStore } from '../../adapters/store/exchange/port.ts';
import { createRedisExchangeStore } from '../../adapters/store/exchange/redis.ts';
import { depositCash, openAccount, readAccount, readPnl, readPositions, setCash } from '../../runtime/exchange/accounts.ts';
import { bookCache } from '../../runtime/exchange/book-cache.ts';
import type { ExchangeContext } from '../../runtime/exchange/context.ts';
import { replayJournal } from '../../machines/exchange/journal.ts';
import { placeOrder } from '../../runtime/exchange/orders.ts';
import { log } from '../../kernel/log.ts';
import { startRedisServer, type RunningServer } from '../support/servers.ts';
import type { BookSymbol } from '../../kernel/domain.ts';

const SYMBOLS: BookSymbol[] = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT'];
const cents = (n: number, dp: number) => new Decimal(n).div(10 ** dp).toFixed(dp);

/** A sorted, uncrossed book: 1-4 levels a side around a mid, prices with 2 digits, qty with 3. */
const bookArb = (symbol: BookSymbol): fc.Arbitrary<BookSnapshot> =>
  fc
    .record({
      mid: fc.integer({ min: 1_000, max: 10_000_000 }),
      gaps: fc.array(fc.integer({ min: 1, max: 500 }), { minLength: 2, maxLength: 8 }),
      qtys: fc.array(fc.integer({ min: 1, max: 3_000 }), { minLength: 8, maxLength: 8 }),
      split: fc.integer({ min: 1, max: 4 }),
    })
    .map(({ mid, gaps, qtys, split }) => {
      const bids: [string, string][] = [];
      const asks: [string, string][] = [];
      let bid = mid;
      let ask = mid + 1;
      gaps.forEach((g, i) => {
        const q = cents(qtys[i] ?? 1, 3);
        if (i % 2 === 0 && bids.length < split) (bids.push([cents(bid, 2), q]), (bid -= g));
        else (asks.push([cents(ask, 2), q]), (ask += g));
      });
      if (bids.length === 0) bids.push([cents(bid, 2), '1.000']);
      if (asks.length === 0) asks.push([cents(ask, 2), '1.000']);
      return { symbol, bids, asks, ts: 0 };
    });

type Command =
  | { kind: 'book'; book: BookSnapshot }
  | { kind: 'order'; account: number; symbol: BookSymbol; side: 'BUY' | 'SELL'; qty: string }
  | { kind: 'deposit'; account: number; amount: string }
  | { kind: 'cash'; account: number; target: string };

const commandArb: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(...SYMBOLS)
      .chain(bookArb)
      .map((book) => ({ kind: 'book' as const, book })),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('order' as const),
      account: fc.integer({ min: 0, max: 1 }),
      symbol: fc.constantFrom(...SYMBOLS),
      side: fc.constantFrom('BUY' as const, 'SELL' as const),
      qty: fc.integer({ min: 1, max: 5_000 }).map((n) => cents(n, 3)),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('deposit' as const),
      account: fc.integer({ min: 0, max: 1 }),
      amount: fc
        .integer({ min: -5_000_0000, max: 5_000_0000 })
        .filter((n) => n !== 0)
        .map((n) => cents(n, 4)),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('cash' as const),
      account: fc.integer({ min: 0, max: 1 }),
      target: fc.integer({ min: 0, max: 2_000_000 }).map((n) => cents(n, 2)),
    }),
  },
);

/** An independent running model of one account, from the replies alone. */
interface Model {
  cash: Decimal;
  fees: Decimal;
  qty: Record<string, Decimal>;
}

async function runSequence(store: ExchangeStore, initialBooks: BookSnapshot[], commands: Command[], tag: string): Promise<void> {
  const books = bookCache(60_000);
  for (const b of initialBooks) books.put({ ...b, ts: Date.now() });
  const ctx: ExchangeContext = { store, books, now: () => new Date(), log: log.child({ test: 'ledger-property' }, { level: 'silent' }) };
  const feeRates = ['0.001', '0.0025'];
  const ids: string[] = [];
  const models: Model[] = [];
  for (const [i, feeRate] of feeRates.entries()) {
    const r = await openAccount(ctx, `${tag}-${i}`, new Decimal('10000'), new Decimal(feeRate));
    if (!r.ok) throw new Error(r.message);
    ids.push(r.value.id);
    models.push({ cash: new Decimal('10000'), fees: new Decimal(0), qty: {} });
  }
  for (const c of commands) {
    if (c.kind === 'book') {
      books.put({ ...c.book, ts: Date.now() });
      continue;
    }
    const id = ids[c.account]!;
    const m = models[c.account]!;
    if (c.kind === 'order') {
      const r = await placeOrder(ctx, { accountId: id, symbol: c.symbol, side: c.side, qty: c.qty, idempotencyKey: null });
      if (!r.ok) {
        // PRICE_UNAVAILABLE: earlier orders consumed the side of this snapshot (docs/orders.md#consumed-liquidity)
        expect(['INSUFFICIENT_FUNDS', 'INSUFFICIENT_POSITION', 'PRICE_UNAVAILABLE']).toContain(r.code);
        continue;
      }
      const o = r.value.body;
      const gross = new Decimal(o.gross!);
      const fee = new Decimal(o.fee!);
      expect(fee.eq(gross.times(feeRates[c.account]!).toDecimalPlaces(10, Decimal.ROUND_HALF_EVEN))).toBe(true);
      m.cash = c.side === 'BUY' ? m.cash.minus(gross).minus(fee) : m.cash.plus(gross).minus(fee);
      m.fees = m.fees.plus(fee);
      const held = m.qty[c.symbol] ?? new Decimal(0);
      m.qty[c.symbol] = c.side === 'BUY' ? held.plus(o.qty!) : held.minus(o.qty!);
      expect(o.cash).toBe(m.cash.toFixed(10));
      expect(new Decimal(o.cash!).gte(0)).toBe(true);
    } else {
      const r = c.kind === 'deposit' ? await depositCash(ctx, id, new Decimal(c.amount)) : await setCash(ctx, id, new Decimal(c.target));
      if (!r.ok) {
        expect(r.code).toBe('INSUFFICIENT_FUNDS');
        continue;
      }
      m.cash = c.kind === 'deposit' ? m.cash.plus(c.amount) : new Decimal(c.target);
    }
  }

  const bids = books.bids();
  for (const [i, id] of ids.entries()) {
    const m = models[i]!;
    const loaded = await store.load(id);
    if (!loaded) throw new Error('account vanished');
    const stored = loaded.bundle.balances;
    const rebuilt = replayJournal(await store.journal(id));
    // the journal reproduces every balance exactly
    expect(rebuilt.cash.toFixed()).toBe(stored.cash.toFixed());
    expect(rebuilt.netDeposits.toFixed()).toBe(stored.netDeposits.toFixed());
    expect(rebuilt.feesPaid.toFixed()).toBe(stored.feesPaid.toFixed());
    const show = (b: typeof stored) =>
      Object.values(b.positions)
        .map((p) => [p.symbol, p.qty.toFixed(), p.costBasis.toFixed(), p.realizedPnl.toFixed()])
        .sort();
    expect(show(rebuilt)).toEqual(show(stored));
    // fees add up to what was charged, and cash/positions follow the model
    expect(stored.feesPaid.eq(m.fees)).toBe(true);
    const orders = await store.orders(id, 1_000_000);
    expect(orders.reduce((s, o) => s.plus(o.fee), new Decimal(0)).eq(m.fees)).toBe(true);
    expect(stored.cash.eq(m.cash)).toBe(true);
    for (const p of Object.values(stored.positions)) {
      expect(p.qty.eq(m.qty[p.symbol] ?? 0)).toBe(true);
      expect(p.qty.gte(0)).toBe(true);
    }
    // PnL identity, and the split into realized + unrealized, and positions valued at the bid
    const pnl = await readPnl(ctx, id);
    const acc = await readAccount(ctx, id);
    const positions = await readPositions(ctx, id);
    if (!pnl.ok || !acc.ok || !positions.ok) throw new Error('read failed');
    const P = pnl.value;
    const D = (s: string) => new Decimal(s);
    expect(D(P.pnl).eq(D(P.equity).minus(D(P.initialCash).plus(D(P.netDeposits))))).toBe(true);
    expect(D(P.pnl).eq(D(P.realizedPnl).plus(D(P.unrealizedPnl)))).toBe(true);
    const valued = positions.value.reduce(
      (s, p) =>
        s.plus(
          D(p.qty)
            .times(bids[p.symbol as BookSymbol] ?? 0)
            .toDecimalPlaces(10),
        ),
      new Decimal(0),
    );
    expect(D(acc.value.positionsValue).eq(valued)).toBe(true);
    expect(D(acc.value.equity).eq(D(acc.value.cash).plus(valued))).toBe(true);
  }
}

const sequenceArb = fc.tuple(fc.tuple(bookArb('BTCUSDT'), bookArb('ETHUSDT'), bookArb('SOLUSDT')), fc.array(commandArb, { minLength: 1, maxLength: 40 }));

describe('ledger properties, in-memory store', () => {
  it('journal replay, fees and PnL identity hold for random sequences', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(sequenceArb, async ([initial, commands]) => {
        await runSequence(createMemoryExchangeStore(), initial, commands, `mem-${run++}`);
      }),
      { numRuns: 150 },
    );
  });
});

describe('ledger properties, Redis store', () => {
  let redis: RunningServer;
  const stores: ExchangeStore[] = [];
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await redis?.stop();
  });

  it('journal replay, fees and PnL identity hold for random sequences', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(sequenceArb, async ([initial, commands]) => {
        const store = createRedisExchangeStore(redis.url, `prop-${run}`);
        stores.push(store);
        await runSequence(store, initial, commands, `redis-${run++}`);
      }),
      { numRuns: 30 },
    );
  });
});
