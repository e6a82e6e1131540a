/**
 * Property tests of the order engine (docs/orders.md) over random books, orders (every type, and
 * native market orders) and cancels, on the in-memory, file and Redis ledgers:
 * - no fill is at a price the book of its timestamp did not show (a taker fill at a level's price
 *   for at most its quantity; a maker fill at a limit the book's opposite side reached);
 * - consumed liquidity is never taken twice within one snapshot: whatever fills took from one
 *   snapshot's side never exceeds what it showed, at any price bound;
 * - free + locked balances and positions replay exactly from the journal, and the locks are exactly
 *   what the open orders hold;
 * - nothing goes below zero (free and locked cash, positions, their free and locked parts).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BookSnapshot } from '../../adapters/feed/port.ts';
import { openFileExchangeStore } from '../../adapters/store/exchange/file.ts';
import { createMemoryExchangeStore } from '../../adapters/store/exchange/memory.ts';
import type { ExchangeStore, TradeRecord } from '../../adapters/store/exchange/port.ts';
import { createRedisExchangeStore } from '../../adapters/store/exchange/redis.ts';
import { log } from '../../kernel/log.ts';
import { dec, ZERO, type Decimal } from '../../machines/exchange/money.ts';
import { replayJournal } from '../../machines/exchange/journal.ts';
import { freeCash, freeQty } from '../../machines/exchange/ledger.ts';
import { isOpen, restoreEngineOrder } from '../../machines/engine-order.ts';
import { openAccount } from '../../runtime/exchange/accounts.ts';
import { bookCache } from '../../runtime/exchange/book-cache.ts';
import type { ExchangeContext } from '../../runtime/exchange/context.ts';
import { createOrderEngine } from '../../runtime/exchange/engine/engine.ts';
import { placeOrder } from '../../runtime/exchange/orders.ts';
import { startRedisServer, type RunningServer } from '../support/servers.ts';
import { BOOK_SYMBOLS, type BookSymbol } from '../../kernel/domain.ts';
import { tempDir } from '../support/temp-dir.ts';

const units = (n: number, dp: number) => dec(String(n)).div(dec('10').pow(dp)).toFixed(dp);

/** A sorted, uncrossed book of 1-4 levels a side around a mid that moved by `move` per mille (prices with 2 digits, quantities with 3). */
const bookArb = fc.record({
  symbol: fc.constantFrom(...BOOK_SYMBOLS),
  move: fc.integer({ min: -60, max: 60 }),
  spread: fc.integer({ min: 1, max: 50 }),
  bids: fc.array(fc.tuple(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1, max: 3_000 })), { minLength: 1, maxLength: 4 }),
  asks: fc.array(fc.tuple(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1, max: 3_000 })), { minLength: 1, maxLength: 4 }),
});
type BookSpec = typeof bookArb extends fc.Arbitrary<infer T> ? T : never;

/** Levels from `start` (in cents) away from the mid by `gap` cents each. */
const levelsOf = (start: number, step: 1 | -1, gaps: [number, number][]): [string, string][] => {
  let price = start;
  return gaps.map(([gap, qty], i) => {
    if (i > 0) price += step * gap;
    return [units(price, 2), units(qty, 3)];
  });
};

type Command =
  | { kind: 'book'; spec: BookSpec }
  | {
      kind: 'place';
      account: number;
      symbol: BookSymbol;
      side: 'BUY' | 'SELL';
      type: 'LIMIT' | 'LIMIT_MAKER' | 'MARKET';
      tif: 'GTC' | 'IOC' | 'FOK';
      qty: number;
      offset: number;
      byQuote: boolean;
    }
  | { kind: 'native'; account: number; symbol: BookSymbol; side: 'BUY' | 'SELL'; qty: number }
  | { kind: 'cancel'; account: number; pick: number };

const commandArb: fc.Arbitrary<Command> = fc.oneof(
  { weight: 4, arbitrary: bookArb.map((spec) => ({ kind: 'book' as const, spec })) },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('place' as const),
      account: fc.integer({ min: 0, max: 1 }),
      symbol: fc.constantFrom(...BOOK_SYMBOLS),
      side: fc.constantFrom('BUY' as const, 'SELL' as const),
      type: fc.constantFrom('LIMIT' as const, 'LIMIT' as const, 'LIMIT_MAKER' as const, 'MARKET' as const),
      tif: fc.constantFrom('GTC' as const, 'GTC' as const, 'IOC' as const, 'FOK' as const),
      qty: fc.integer({ min: 1, max: 4_000 }),
      offset: fc.integer({ min: -25, max: 25 }),
      byQuote: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('native' as const),
      account: fc.integer({ min: 0, max: 1 }),
      symbol: fc.constantFrom(...BOOK_SYMBOLS),
      side: fc.constantFrom('BUY' as const, 'SELL' as const),
      qty: fc.integer({ min: 1, max: 3_000 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('cancel' as const), account: fc.integer({ min: 0, max: 1 }), pick: fc.nat() }) },
);

/** What a fill took from a snapshot, for the checks: its side as a taker, price, quantity, and whether it rested. */
interface Taken {
  symbol: BookSymbol;
  bookTs: number;
  side: 'BUY' | 'SELL';
  price: Decimal;
  qty: Decimal;
  maker: boolean;
}

/** What the runs exercised, so a run that never filled or canceled anything cannot pass unnoticed. */
const seen = { maker: 0, taker: 0, canceled: 0, native: 0 };

/** Runs `commands` one after another (checking the balances after each), or all in flight at once (`concurrent`: books land between them). */
async function runSequence(store: ExchangeStore, commands: Command[], tag: string, concurrent = false): Promise<void> {
  let clock = 1_700_000_000_000;
  const books = bookCache(60_000, () => clock);
  const ctx: ExchangeContext = { store, books, now: () => new Date(clock), log: log.child({}, { level: 'silent' }) };
  const engine = createOrderEngine(ctx);
  const shown = new Map<string, BookSnapshot>();
  const taken: Taken[] = [];
  const ids: string[] = [];
  for (const i of [0, 1]) {
    const r = await openAccount(ctx, `${tag}-${i}`, dec('100000'), dec('0.001'), dec(i === 0 ? '0.0005' : '0.001'));
    if (!r.ok) throw new Error(r.message);
    ids.push(r.value.id);
  }
  const feed = async (b: BookSnapshot) => {
    shown.set(`${b.symbol}:${b.ts}`, b);
    if (books.put(b)) engine.onBook(b);
    await engine.settled();
  };
  // every symbol starts with a book
  // every symbol starts with a book, and both accounts with some of each asset to sell
  for (const symbol of BOOK_SYMBOLS) {
    await feed({ symbol, bids: [['99.00', '50.000']], asks: [['101.00', '50.000']], ts: ++clock });
    for (const accountId of ids) expect((await engine.place({ accountId, symbol, side: 'BUY', type: 'MARKET', quantity: '10' })).ok).toBe(true);
  }
  // native market orders: the book each priced itself on, by order id (the record has the fills)
  const nativeBooks = new Map<string, { accountId: string; book: BookSnapshot }>();
  const step = async (c: Exclude<Command, { kind: 'book' }>): Promise<void> => {
    if (c.kind === 'place') {
      const book = books.fresh(c.symbol)!;
      const mid = dec(book.bids[0]![0]).plus(book.asks[0]![0]).div(2);
      const price = mid
        .times(1000 + c.offset)
        .div(1000)
        .toDecimalPlaces(2)
        .toFixed();
      const qty = units(c.qty, 3);
      const r = await engine.place({
        accountId: ids[c.account]!,
        symbol: c.symbol,
        side: c.side,
        type: c.type,
        ...(c.type === 'LIMIT' ? { timeInForce: c.tif } : {}),
        ...(c.type === 'MARKET'
          ? c.byQuote
            ? { quoteOrderQty: dec(qty).times(price).toDecimalPlaces(2).toFixed() }
            : { quantity: qty }
          : { quantity: qty, price }),
      });
      if (!r.ok) expect(['INSUFFICIENT_FUNDS', 'INSUFFICIENT_POSITION', 'PRICE_UNAVAILABLE', 'WOULD_TAKE']).toContain(r.code);
    } else if (c.kind === 'native') {
      // the order reads its book synchronously, before its first await
      const book = books.fresh(c.symbol)!;
      const r = await placeOrder(ctx, { accountId: ids[c.account]!, symbol: c.symbol, side: c.side, qty: units(c.qty, 3), idempotencyKey: null });
      if (r.ok) nativeBooks.set(r.value.body.orderId!, { accountId: ids[c.account]!, book });
      else expect(['INSUFFICIENT_FUNDS', 'INSUFFICIENT_POSITION', 'PRICE_UNAVAILABLE']).toContain(r.code);
    } else {
      const open = await engine.openOrders(ids[c.account]!);
      if (!open.ok || open.value.length === 0) return;
      const o = open.value[c.pick % open.value.length]!;
      const r = await engine.cancel(ids[c.account]!, o.symbol, { orderId: o.orderId });
      // in flight, another command may have filled or canceled it meanwhile
      if (r.ok) seen.canceled++;
      else expect(concurrent ? ['ORDER_NOT_OPEN'] : []).toContain(r.code);
    }
  };
  const inFlight: Promise<void>[] = [];
  for (const c of commands) {
    clock += 1;
    if (c.kind === 'book') {
      const { symbol, move, spread, bids, asks } = c.spec;
      const last = books.fresh(symbol)!;
      const mid = dec(last.bids[0]![0])
        .times(1000 + move)
        .div(10)
        .round()
        .toNumber();
      const book = { symbol, bids: levelsOf(mid, -1, bids), asks: levelsOf(mid + spread, 1, asks), ts: clock };
      shown.set(`${symbol}:${book.ts}`, book);
      if (books.put(book)) engine.onBook(book);
      if (!concurrent) await engine.settled();
    } else if (concurrent) {
      inFlight.push(step(c));
      // a few commands start in the same turn; then the ones in flight move on a little
      if (inFlight.length % 3 === 0) await new Promise((r) => setImmediate(r));
    } else {
      await step(c);
    }
    if (!concurrent) for (const id of ids) await checkBalances(store, id);
  }
  await Promise.all(inFlight);
  for (const id of ids) {
    for (const o of await store.orders(id, 1_000_000)) {
      const priced = nativeBooks.get(o.orderId);
      if (!priced) continue;
      seen.native++;
      for (const f of o.fills) taken.push({ symbol: o.symbol, bookTs: priced.book.ts, side: o.side, price: dec(f.price), qty: dec(f.qty), maker: false });
    }
  }
  await engine.settled();
  for (const id of ids) {
    await checkBalances(store, id);
    for (const symbol of BOOK_SYMBOLS) {
      const trades = await store.trades(id);
      for (const t of trades.filter((x) => x.symbol === symbol)) {
        checkShown(t, shown.get(`${symbol}:${t.bookTs}`));
        taken.push({ symbol, bookTs: t.bookTs, side: t.side, price: dec(t.price), qty: dec(t.qty), maker: t.liquidity === 'MAKER' });
        seen[t.liquidity === 'MAKER' ? 'maker' : 'taker']++;
      }
    }
    await checkReplay(store, id);
    await checkIds(store, id);
  }
  checkNeverTakenTwice(taken, shown);
}

/** Every order and fill has its place as its integer id, whatever ran at once (docs/orders.md#ids): none twice, none missing. */
async function checkIds(store: ExchangeStore, accountId: string): Promise<void> {
  const orders = (await store.engineOrders(accountId)) as { context: { orderId: string; number?: number } }[];
  expect(orders.map((o) => o.context.number)).toEqual(orders.map((_, i) => i + 1));
  const places = new Map(orders.map((o, i) => [o.context.orderId, i + 1]));
  const trades = await store.trades(accountId);
  expect(trades.map((t) => [t.number, t.orderNumber])).toEqual(trades.map((t, i) => [i + 1, places.get(t.orderId)]));
}

/** The fill's price was on the book of its time: a taker at a level for no more than it, a maker at a limit the other side reached. */
function checkShown(t: TradeRecord, book: BookSnapshot | undefined): void {
  expect(book, `book ${t.symbol}@${t.bookTs} of trade ${t.tradeId}`).toBeDefined();
  const levels = (t.side === 'BUY' ? book!.asks : book!.bids).map(([p, q]) => [dec(p), dec(q)] as const);
  const price = dec(t.price);
  if (t.liquidity === 'TAKER') {
    const level = levels.find(([p]) => p.eq(price));
    expect(level, `taker fill at ${t.price} is a level of the book`).toBeDefined();
    expect(dec(t.qty).lte(level![1])).toBe(true);
  } else {
    const reach = levels.filter(([p]) => (t.side === 'BUY' ? p.lte(price) : p.gte(price))).reduce((a, [, q]) => a.plus(q), ZERO);
    expect(dec(t.qty).lte(reach), `maker fill of ${t.qty} at ${t.price} within what the book showed`).toBe(true);
  }
}

/** For every snapshot side and price bound, the fills that had to take within the bound never exceed what the book showed within it. */
function checkNeverTakenTwice(taken: Taken[], shown: Map<string, BookSnapshot>): void {
  const groups = new Map<string, Taken[]>();
  for (const t of taken) groups.set(`${t.symbol}:${t.bookTs}:${t.side}`, [...(groups.get(`${t.symbol}:${t.bookTs}:${t.side}`) ?? []), t]);
  for (const [key, fills] of groups) {
    const [symbol, ts, side] = key.split(':') as [BookSymbol, string, 'BUY' | 'SELL'];
    const book = shown.get(`${symbol}:${ts}`)!;
    const levels = (side === 'BUY' ? book.asks : book.bids).map(([p, q]) => [dec(p), dec(q)] as const);
    const within = (p: Decimal, bound: Decimal) => (side === 'BUY' ? p.lte(bound) : p.gte(bound));
    for (const [bound] of levels) {
      const offered = levels.filter(([p]) => within(p, bound)).reduce((a, [, q]) => a.plus(q), ZERO);
      const used = fills.filter((f) => within(f.price, bound)).reduce((a, f) => a.plus(f.qty), ZERO);
      expect(used.lte(offered), `${key}: ${used.toFixed()} taken at or within ${bound.toFixed()}, ${offered.toFixed()} shown`).toBe(true);
    }
  }
}

/** Nothing below zero, and the locks are what the open orders hold. */
async function checkBalances(store: ExchangeStore, id: string): Promise<void> {
  const b = (await store.load(id))!.bundle.balances;
  expect(freeCash(b).gte(0) && b.cashLocked.gte(0)).toBe(true);
  for (const s of BOOK_SYMBOLS) {
    const p = b.positions[s];
    if (p) expect(p.qty.gte(0) && p.locked.gte(0) && freeQty(b, s).gte(0)).toBe(true);
  }
  const open = (await store.engineOrders(id)).map(restoreEngineOrder).filter(isOpen);
  const held = (asset: string) => open.filter((o) => o.context.lockAsset === asset).reduce((a, o) => a.plus(o.context.locked), ZERO);
  expect(b.cashLocked.toFixed()).toBe(held('USDT').toFixed());
  for (const s of BOOK_SYMBOLS) expect((b.positions[s]?.locked ?? ZERO).toFixed()).toBe(held(s).toFixed());
}

/** Every balance, free and locked, replays from the journal. */
async function checkReplay(store: ExchangeStore, id: string): Promise<void> {
  const stored = (await store.load(id))!.bundle.balances;
  const replayed = replayJournal(await store.journal(id));
  const show = (b: typeof stored) => [
    b.cash.toFixed(),
    b.cashLocked.toFixed(),
    b.feesPaid.toFixed(),
    ...BOOK_SYMBOLS.map((s) => b.positions[s]).flatMap((p) => (p ? [p.qty.toFixed(), p.locked.toFixed(), p.costBasis.toFixed(), p.realizedPnl.toFixed()] : [])),
  ];
  expect(show(replayed)).toEqual(show(stored));
}

const sequences = fc.array(commandArb, { minLength: 5, maxLength: 60 });

describe('order engine properties', () => {
  it('in memory', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(sequences, (commands) => runSequence(createMemoryExchangeStore(), commands, `mem-${run++}`)),
      { numRuns: 150 },
    );
    expect(
      Object.values(seen).every((n) => n > 20),
      JSON.stringify(seen),
    ).toBe(true);
  });

  it('in memory, with every order and cancel in flight at once and books landing between them', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(sequences, (commands) => runSequence(createMemoryExchangeStore(), commands, `mem-concurrent-${run++}`, true)),
      { numRuns: 100 },
    );
  });

  it('on the journal file', async () => {
    const dir = tempDir('engine-prop-');
    let run = 0;
    try {
      await fc.assert(
        fc.asyncProperty(sequences, async (commands) => {
          const store = openFileExchangeStore(join(dir, `ledger-${run}.log`));
          try {
            await runSequence(store, commands, `file-${run++}`);
          } finally {
            await store.close();
          }
        }),
        { numRuns: 25 },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('on Redis', () => {
    let redis: RunningServer;
    beforeAll(async () => {
      redis = await startRedisServer();
    });
    afterAll(async () => {
      await redis?.stop();
    });

    it('holds with everything in flight at once', async () => {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(sequences, async (commands) => {
          const store = createRedisExchangeStore(redis.url, `engine-prop-concurrent-${run}`);
          try {
            await runSequence(store, commands, `redis-concurrent-${run++}`, true);
          } finally {
            await store.close();
          }
        }),
        { numRuns: 25 },
      );
    });

    it('holds too', async () => {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(sequences, async (commands) => {
          const store = createRedisExchangeStore(redis.url, `engine-prop-${run}`);
          try {
            await runSequence(store, commands, `redis-${run++}`);
          } finally {
            await store.close();
          }
        }),
        { numRuns: 25 },
      );
    });
  });
});
