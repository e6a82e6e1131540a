/**
 * The order engine on an in-memory ledger and a hand-fed book cache: order types, locks, consumed
 * liquidity, resting fills at the limit price with the book's time, cancels, refusals, events, and
 * every balance replayed from the journal.
 */
import { describe, expect, it } from 'vitest';
import type { BookSnapshot } from '../../../adapters/feed/port.ts';
import { createMemoryExchangeStore } from '../../../adapters/store/exchange/memory.ts';
import type { ExchangeStore } from '../../../adapters/store/exchange/port.ts';
import { log } from '../../../kernel/log.ts';
import { replayJournal } from '../../../machines/exchange/journal.ts';
import { dec } from '../../../machines/exchange/money.ts';
import { openAccount, depositCash } from '../accounts.ts';
import { bookCache } from '../book-cache.ts';
import type { ExchangeContext } from '../context.ts';
import type { ExchangeEvent } from '../events.ts';
import { placeOrder } from '../orders.ts';
import { createOrderEngine } from './engine.ts';

let clock = 1_000_000;
const sol = (bids: [string, string][], asks: [string, string][]): BookSnapshot => ({ symbol: 'SOLUSDT', bids, asks, ts: ++clock });

async function setUp(store: ExchangeStore = createMemoryExchangeStore(), cash = '10000', maker?: string) {
  const books = bookCache(30_000, () => clock);
  const ctx: ExchangeContext = { store, books, now: () => new Date(clock), log: log.child({}, { level: 'silent' }) };
  const events: ExchangeEvent[] = [];
  const engine = createOrderEngine(ctx, { publish: (e) => events.push(e) });
  const feed = async (b: BookSnapshot) => {
    if (books.put(b)) engine.onBook(b);
    await engine.settled();
  };
  const opened = await openAccount(ctx, `acct-${clock++}`, dec(cash), dec('0.001'), maker === undefined ? undefined : dec(maker));
  if (!opened.ok) throw new Error(opened.message);
  const id = opened.value.id;
  const balances = async () =>
    Object.fromEntries(
      ((await engine.balances(id)) as { ok: true; value: { asset: string; free: string; locked: string }[] }).value.map((b) => [b.asset, [b.free, b.locked]]),
    );
  const replays = async () => {
    const stored = (await store.load(id))!.bundle.balances;
    const replayed = replayJournal(await store.journal(id));
    expect(replayed.cash.toFixed()).toBe(stored.cash.toFixed());
    expect(replayed.cashLocked.toFixed()).toBe(stored.cashLocked.toFixed());
    expect(replayed.positions.SOLUSDT?.locked.toFixed()).toBe(stored.positions.SOLUSDT?.locked.toFixed());
    expect(replayed.positions.SOLUSDT?.qty.toFixed()).toBe(stored.positions.SOLUSDT?.qty.toFixed());
  };
  return { ctx, engine, feed, id, events, balances, replays, store };
}

const value = <T>(r: { ok: true; value: T } | { ok: false; code: string; message: string }): T => {
  if (!r.ok) throw new Error(`${r.code}: ${r.message}`);
  return r.value;
};

describe('order engine', () => {
  it('rests a LIMIT BUY with its cash locked, fills it at its limit price when a book reaches it, and releases the lock', async () => {
    const t = await setUp();
    await t.feed(sol([['149', '10']], [['150', '10']]));
    const placed = value(await t.engine.place({ accountId: t.id, symbol: 'SOLUSDT', side: 'BUY', type: 'LIMIT', quantity: '2', price: '148' }));
    expect(placed.order).toMatchObject({ status: 'NEW', executedQty: '0.0000000000', locked: '296.2960000000', timeInForce: 'GTC' });
    expect(await t.balances()).toEqual({ USDT: ['9703.7040000000', '296.2960000000'] });
    // a book whose best ask is above the price fills nothing; nor does one that arrives already stale
    await t.feed(sol([['148.5', '10']], [['149', '10']]));
    clock += 60_000;
    await t.feed({ ...sol([['146', '10']], [['147', '10']]), ts: clock - 30_001 });
    expect(value(await t.engine.openOrders(t.id)).map((o) => o.status)).toEqual(['NEW']);
    // asks at 147 and 148, 1.5 in all: 1.5 fills, at 148 (the limit), maker
    const reaching = sol(
      [['146', '10']],
      [
        ['147', '1'],
        ['148', '0.5'],
        ['149', '5'],
      ],
    );
    await t.feed(reaching);
    const partial = value(await t.engine.order(t.id, 'SOLUSDT', { orderId: placed.order.orderId }));
    expect(partial).toMatchObject({
      status: 'PARTIALLY_FILLED',
      executedQty: '1.5000000000',
      cumulativeQuoteQty: '222.0000000000',
      commission: '0.2220000000',
    });
    expect(partial.lastFill).toMatchObject({ price: '148.0000000000', qty: '1.5000000000', liquidity: 'MAKER', bookTs: reaching.ts });
    await t.feed(sol([['146', '10']], [['148', '3']]));
    const filled = value(await t.engine.order(t.id, 'SOLUSDT', { clientOrderId: placed.order.clientOrderId }));
    expect(filled).toMatchObject({ status: 'FILLED', executedQty: '2.0000000000', locked: '0.0000000000' });
    expect(await t.balances()).toEqual({ USDT: ['9703.7040000000', '0.0000000000'], SOL: ['2.0000000000', '0.0000000000'] });
    const trades = value(await t.engine.myTrades(t.id, 'SOLUSDT'));
    expect(trades.map((x) => [x.price, x.qty, x.liquidity])).toEqual([
      ['148.0000000000', '1.5000000000', 'MAKER'],
      ['148.0000000000', '0.5000000000', 'MAKER'],
    ]);
    expect(t.engine.restingCount).toBe(0);
    await t.replays();
    const kinds = t.events.filter((e) => e.kind === 'order').map((e) => (e.kind === 'order' ? `${e.execution}:${e.status}` : ''));
    expect(kinds).toEqual(['NEW:NEW', 'TRADE:PARTIALLY_FILLED', 'TRADE:FILLED']);
  });

  it('takes what a marketable LIMIT reaches as a taker at the levels shown, rests the rest, and consumes what it took', async () => {
    const t = await setUp();
    const book = sol(
      [['149', '10']],
      [
        ['150', '1'],
        ['151', '1'],
        ['153', '5'],
      ],
    );
    await t.feed(book);
    const placed = value(await t.engine.place({ accountId: t.id, symbol: 'SOLUSDT', side: 'BUY', type: 'LIMIT', quantity: '3', price: '151' }));
    expect(placed.fills.map((f) => [f.price, f.qty, f.liquidity, f.bookTs])).toEqual([
      ['150.0000000000', '1.0000000000', 'TAKER', book.ts],
      ['151.0000000000', '1.0000000000', 'TAKER', book.ts],
    ]);
    expect(placed.order).toMatchObject({ status: 'PARTIALLY_FILLED', executedQty: '2.0000000000' });
    // the same snapshot has nothing left at or below 151: a market order now walks to 153
    const market = await placeOrder(t.ctx, { accountId: t.id, symbol: 'SOLUSDT', side: 'BUY', qty: '1', idempotencyKey: null });
    expect(market.ok && market.value.body.price).toBe('153.0000000000');
    // the same book again is not newer: nothing fills, nothing comes back
    await t.feed({ ...book });
    expect(value(await t.engine.order(t.id, 'SOLUSDT', { orderId: placed.order.orderId })).status).toBe('PARTIALLY_FILLED');
    await t.replays();
  });

  it('refuses a LIMIT_MAKER that would take, a duplicate client id, and what the free balance does not cover; expires a FOK it cannot fill', async () => {
    const t = await setUp(undefined, '1000');
    await t.feed(sol([['149', '10']], [['150', '2']]));
    const base = { accountId: t.id, symbol: 'SOLUSDT' as const, side: 'BUY' as const };
    expect(await t.engine.place({ ...base, type: 'LIMIT_MAKER', quantity: '1', price: '150' })).toMatchObject({ ok: false, code: 'WOULD_TAKE' });
    const fok = value(await t.engine.place({ ...base, type: 'LIMIT', timeInForce: 'FOK', quantity: '3', price: '150' }));
    expect(fok.order).toMatchObject({ status: 'EXPIRED', origQty: '3.0000000000', executedQty: '0.0000000000', locked: '0.0000000000' });
    expect(fok.fills).toEqual([]);
    value(await t.engine.place({ ...base, type: 'LIMIT_MAKER', quantity: '6', price: '140', clientOrderId: 'mine' }));
    expect(await t.engine.place({ ...base, type: 'LIMIT', quantity: '0.1', price: '140', clientOrderId: 'mine' })).toMatchObject({
      code: 'DUPLICATE_CLIENT_ORDER_ID',
    });
    // 840.84 is locked: 159.16 is free, and neither a limit nor a market order nor a withdrawal may use more
    expect(await t.engine.place({ ...base, type: 'LIMIT', quantity: '1.2', price: '140' })).toMatchObject({ code: 'INSUFFICIENT_FUNDS' });
    expect(await placeOrder(t.ctx, { accountId: t.id, symbol: 'SOLUSDT', side: 'BUY', qty: '1.1', idempotencyKey: null })).toMatchObject({
      code: 'INSUFFICIENT_FUNDS',
    });
    expect(await depositCash(t.ctx, t.id, dec('-160'))).toMatchObject({ code: 'INSUFFICIENT_FUNDS' });
    expect(await t.engine.place({ ...base, side: 'SELL', type: 'MARKET', quantity: '1' })).toMatchObject({ code: 'INSUFFICIENT_POSITION' });
    expect(await t.engine.place({ ...base, type: 'LIMIT', quantity: '-1', price: '140' })).toMatchObject({ code: 'INVALID_ORDER' });
    expect(await t.engine.place({ ...base, type: 'MARKET', quantity: '1', quoteOrderQty: '10' })).toMatchObject({ code: 'INVALID_ORDER' });
    expect(await t.engine.place({ ...base, accountId: 'nobody', type: 'MARKET', quantity: '1' })).toMatchObject({ code: 'ACCOUNT_NOT_FOUND' });
    await t.replays();
  });

  it('expires what an IOC or a MARKET order could not fill, and buys by quote amount', async () => {
    const t = await setUp();
    await t.feed(
      sol(
        [['149', '10']],
        [
          ['150', '1'],
          ['152', '1'],
        ],
      ),
    );
    const ioc = value(
      await t.engine.place({ accountId: t.id, symbol: 'SOLUSDT', side: 'BUY', type: 'LIMIT', timeInForce: 'IOC', quantity: '2', price: '151' }),
    );
    expect(ioc.order).toMatchObject({ status: 'EXPIRED', executedQty: '1.0000000000', locked: '0.0000000000' });
    const byQuote = value(await t.engine.place({ accountId: t.id, symbol: 'SOLUSDT', side: 'BUY', type: 'MARKET', quoteOrderQty: '76' }));
    expect(byQuote.order).toMatchObject({ status: 'FILLED', executedQty: '0.5000000000', cumulativeQuoteQty: '76.0000000000', origQty: '0.5000000000' });
    value(await t.engine.place({ accountId: t.id, symbol: 'SOLUSDT', side: 'BUY', type: 'MARKET', quoteOrderQty: '76' }));
    const market = value(await t.engine.place({ accountId: t.id, symbol: 'SOLUSDT', side: 'SELL', type: 'MARKET', quantity: '1.5' }));
    expect(market.order).toMatchObject({ status: 'FILLED', executedQty: '1.5000000000' });
    expect(market.fills.map((f) => f.price)).toEqual(['149.0000000000']);
    // nothing is left on the ask side of this snapshot
    expect(await t.engine.place({ accountId: t.id, symbol: 'SOLUSDT', side: 'BUY', type: 'MARKET', quantity: '1' })).toMatchObject({
      code: 'PRICE_UNAVAILABLE',
    });
    await t.replays();
  });

  it('locks a SELL in the position, cancels it with its lock released, and refuses a second cancel', async () => {
    const t = await setUp();
    await t.feed(sol([['149', '10']], [['150', '10']]));
    value(await t.engine.place({ accountId: t.id, symbol: 'SOLUSDT', side: 'BUY', type: 'MARKET', quantity: '2' }));
    const sell = value(await t.engine.place({ accountId: t.id, symbol: 'SOLUSDT', side: 'SELL', type: 'LIMIT', quantity: '1.5', price: '155' }));
    expect((await t.balances()).SOL).toEqual(['0.5000000000', '1.5000000000']);
    expect(await t.engine.place({ accountId: t.id, symbol: 'SOLUSDT', side: 'SELL', type: 'MARKET', quantity: '1' })).toMatchObject({
      code: 'INSUFFICIENT_POSITION',
    });
    // bids reach 155 with 1 shown: 1 fills at 155
    await t.feed(
      sol(
        [
          ['156', '1'],
          ['150', '9'],
        ],
        [['157', '10']],
      ),
    );
    expect(value(await t.engine.order(t.id, 'SOLUSDT', { orderId: sell.order.orderId }))).toMatchObject({
      status: 'PARTIALLY_FILLED',
      executedQty: '1.0000000000',
    });
    expect(await t.engine.cancel(t.id, 'BTCUSDT', { orderId: sell.order.orderId })).toMatchObject({ code: 'UNKNOWN_ORDER' });
    const canceled = value(await t.engine.cancel(t.id, 'SOLUSDT', { orderId: sell.order.orderId }));
    expect(canceled).toMatchObject({ status: 'CANCELED', locked: '0.0000000000' });
    expect((await t.balances()).SOL).toEqual(['1.0000000000', '0.0000000000']);
    expect(await t.engine.cancel(t.id, 'SOLUSDT', { orderId: sell.order.orderId })).toMatchObject({ code: 'ORDER_NOT_OPEN' });
    expect(await t.engine.cancel(t.id, 'SOLUSDT', { clientOrderId: 'never' })).toMatchObject({ code: 'UNKNOWN_ORDER' });
    // a canceled order never fills again
    await t.feed(sol([['160', '10']], [['161', '10']]));
    expect(value(await t.engine.myTrades(t.id, 'SOLUSDT'))).toHaveLength(2);
    expect(value(await t.engine.allOrders(t.id, 'SOLUSDT')).map((o) => o.status)).toEqual(['FILLED', 'CANCELED']);
    await t.replays();
  });

  it('charges the maker rate on resting fills and the taker rate on taking ones', async () => {
    const t = await setUp(undefined, '10000', '0');
    await t.feed(sol([['149', '10']], [['150', '10']]));
    const taker = value(await t.engine.place({ accountId: t.id, symbol: 'SOLUSDT', side: 'BUY', type: 'LIMIT', quantity: '1', price: '150' }));
    expect(taker.fills[0]?.commission).toBe('0.1500000000');
    value(await t.engine.place({ accountId: t.id, symbol: 'SOLUSDT', side: 'BUY', type: 'LIMIT', quantity: '1', price: '140' }));
    await t.feed(sol([['139', '10']], [['140', '10']]));
    const trades = value(await t.engine.myTrades(t.id, 'SOLUSDT'));
    expect(trades[1]).toMatchObject({ liquidity: 'MAKER', commission: '0.0000000000', price: '140.0000000000' });
  });

  it('gives resting orders at one price the liquidity in time order, and never more than the book shows', async () => {
    const t = await setUp();
    const other = await setUp(t.store);
    await t.feed(sol([['140', '10']], [['150', '10']]));
    // a second engine on the same store would be a second process: use the first engine for both accounts
    const first = value(await t.engine.place({ accountId: t.id, symbol: 'SOLUSDT', side: 'BUY', type: 'LIMIT', quantity: '1', price: '145' }));
    const second = value(await t.engine.place({ accountId: other.id, symbol: 'SOLUSDT', side: 'BUY', type: 'LIMIT', quantity: '1', price: '145' }));
    const better = value(await t.engine.place({ accountId: other.id, symbol: 'SOLUSDT', side: 'BUY', type: 'LIMIT', quantity: '1', price: '146' }));
    await t.feed(
      sol(
        [['140', '10']],
        [
          ['145', '1.5'],
          ['150', '10'],
        ],
      ),
    );
    const q = async (id: string, orderId: string) => value(await t.engine.order(id, 'SOLUSDT', { orderId })).executedQty;
    expect([await q(other.id, better.order.orderId), await q(t.id, first.order.orderId), await q(other.id, second.order.orderId)]).toEqual([
      '1.0000000000',
      '0.5000000000',
      '0.0000000000',
    ]);
  });
});
