/**
 * Placing an order on the engine (docs/orders.md#placing): it takes what it can from the latest
 * fresh book at once (as a taker, consuming the snapshot's liquidity), then rests the rest (LIMIT
 * GTC, LIMIT_MAKER) with its cash or position locked, or expires it (IOC, MARKET). The fills, the
 * lock, the journal entries, the order's snapshot and an equity point are one commit.
 */
import { randomUUID } from 'node:crypto';
import type { BookSnapshot } from '../../../adapters/feed/port.ts';
import type { AccountBundle, TradeRecord } from '../../../adapters/store/exchange/port.ts';
import { ok, refuse } from '../../../kernel/refusal.ts';
import { engineOrderSteps, isOpen, type EngineOrderSnapshot, type OrderFill } from '../../../machines/engine-order.ts';
import type { JournalEntry } from '../../../machines/exchange/journal.ts';
import { applyLock, applyTrade, freeCash, freeQty, tradeFee, type Balances } from '../../../machines/exchange/ledger.ts';
import { dec, fmt, ZERO, type Decimal } from '../../../machines/exchange/money.ts';
import { buyReserve } from '../../../machines/exchange/order-money.ts';
import { serialPerAccount } from '../account-queue.ts';
import { totalsOf } from '../accounts.ts';
import { retryOnConflict } from '../outcome.ts';
import { equityPointOf } from '../views.ts';
import { consume, giveBack, walkBook, type BookWalk } from '../walk-book.ts';
import { orderWrite, tradeEntry, type EngineCore } from './core.ts';
import { parsePlacement, type ParsedPlacement } from './placement-input.ts';
import type { EngineResult, PlacedOrder, PlaceRequest } from './types.ts';
import { balanceEvent, orderEvent, orderView, type Announced } from './views.ts';

/** What a placement commits, decided from the account and the book (pure). */
interface Plan {
  order: EngineOrderSnapshot;
  balances: Balances;
  journal: JournalEntry[];
  trades: TradeRecord[];
  /** the fills made at placement, oldest first (the snapshot keeps only the last) */
  fills: OrderFill[];
  walk: BookWalk | null;
}

/** Places `req`; the answer is the order after placement with its fills, or a refusal. */
export async function placeOrder(core: EngineCore, req: PlaceRequest): Promise<EngineResult<PlacedOrder>> {
  const parsed = parsePlacement(req);
  if (!parsed.ok) return parsed;
  const p = parsed.value;
  const { ctx } = core;
  const orderId = randomUUID();
  return serialPerAccount(ctx.store, req.accountId, () =>
    retryOnConflict(async (): Promise<EngineResult<PlacedOrder> | 'conflict'> => {
      const loaded = await ctx.store.load(req.accountId);
      if (!loaded) return refuse('ACCOUNT_NOT_FOUND', `account ${req.accountId} does not exist`);
      const clientOrderId = req.clientOrderId ?? `engine-${orderId}`;
      if (req.clientOrderId !== undefined && (await ctx.store.engineOrder(req.accountId, { clientOrderId })) !== null) {
        return refuse('DUPLICATE_CLIENT_ORDER_ID', `client order id ${JSON.stringify(clientOrderId)} is already used by an order of this account`);
      }
      const now = ctx.now();
      const book = ctx.books.fresh(req.symbol);
      const plan = planPlacement(p, { orderId, clientOrderId, bundle: loaded.bundle, book, now: now.getTime() });
      if (!('order' in plan)) return plan;
      const { order, balances, journal, trades, fills, walk } = plan;
      // taken before the commit's await: a concurrent order on this snapshot sees the rest
      if (book && walk) consume(book, req.side, walk.fills);
      const undo = () => book && walk && giveBack(book, req.side, walk.fills);
      const out = await ctx.store
        .commit(req.accountId, loaded.bundle.version, {
          balances,
          journal,
          engineOrders: [orderWrite(order)],
          trades,
          ...(trades.length > 0 ? { equityPoint: equityPointOf(now, balances, totalsOf(ctx, loaded.bundle, balances)) } : {}),
        })
        .catch((err: unknown) => {
          undo();
          throw err;
        });
      if (out !== 'committed') {
        undo();
        return out === 'conflict' ? 'conflict' : refuse('ACCOUNT_NOT_FOUND', `account ${req.accountId} does not exist`);
      }
      if (isOpen(order)) {
        const c = order.context;
        core.resting.add({
          orderId,
          accountId: c.accountId,
          clientOrderId,
          symbol: c.symbol,
          side: c.side,
          price: dec(c.price ?? '0'),
          unmatched: dec(c.origQty).minus(c.executedQty),
          snapshot: order,
        });
      }
      const { lastIds } = loaded.bundle;
      core.announce(placementEvents(order, fills, balances, now.getTime(), lastIds.trade));
      const view = orderView(order, lastIds.order + 1);
      ctx.log.info({ accountId: req.accountId, orderId, type: p.type, status: view.status, symbol: req.symbol, side: req.side }, 'engine order placed');
      return ok({ order: view, fills: trades.map((t, i) => ({ ...t, number: lastIds.trade + i + 1, orderNumber: view.number })) });
    }),
  );
}

/**
 * NEW, one TRADE per fill, EXPIRED when the rest will not rest; then the balances. `lastTrade`: the
 * account's last fill id before these fills (docs/orders.md#ids).
 */
export function placementEvents(order: EngineOrderSnapshot, fills: OrderFill[], balances: Balances, time: number, lastTrade: number): Announced[] {
  const number = order.context.number ?? 0;
  let s = engineOrderSteps.start(order.context);
  const events = [orderEvent(s, 'NEW', time, { order: number, trade: -1 })];
  fills.forEach((fill, i) => {
    s = engineOrderSteps.send(s, { type: 'FILL', fill, release: '0' });
    events.push(orderEvent(s, 'TRADE', time, { order: number, trade: lastTrade + i + 1 }));
  });
  if (order.value === 'expired') events.push(orderEvent(order, 'EXPIRED', time, { order: number, trade: -1 }));
  events.push(balanceEvent(order.context.accountId, balances, time));
  return events;
}

/** Who places, on what account, at which book. */
interface PlacementAt {
  orderId: string;
  clientOrderId: string;
  bundle: AccountBundle;
  book: BookSnapshot | null;
  now: number;
}

type PlacementRefusal = ReturnType<typeof refuse<'INSUFFICIENT_FUNDS' | 'INSUFFICIENT_POSITION' | 'PRICE_UNAVAILABLE' | 'WOULD_TAKE'>>;

/** What an order takes at once and what it leaves to rest, by its type (docs/orders.md#order-types). */
interface Taking {
  takes: BookWalk | null;
  origQty: Decimal;
  restingQty: Decimal;
  /** whether the order rests (GTC, LIMIT_MAKER) rather than expire what it did not take */
  rests: boolean;
}

/** What `p` takes from the book at `at`, or the refusal its type makes of the book. */
function taking(p: ParsedPlacement, book: BookSnapshot | null): Taking | PlacementRefusal {
  const limits = { ...(p.price ? { limit: p.price } : {}), ...(p.quote ? { quote: p.quote } : {}) };
  const walk = book ? walkBook(book, p.side, p.qty ?? dec('1e30'), limits) : null;
  const taken = walk?.filledQty ?? ZERO;
  if (p.type === 'MARKET' && taken.isZero()) return refuse('PRICE_UNAVAILABLE', `no fresh ${p.symbol} book with anything left to take`);
  if (p.type === 'LIMIT_MAKER' && taken.gt(0)) return refuse('WOULD_TAKE', 'a LIMIT_MAKER order would immediately match and take');
  // a FOK the book cannot fill whole takes nothing and expires, as Binance records it (docs/orders.md#order-types)
  if (p.timeInForce === 'FOK' && (!walk || walk.partial)) return { takes: null, origQty: p.qty ?? ZERO, rests: false, restingQty: ZERO };
  const takes = p.type === 'LIMIT_MAKER' ? null : walk;
  const origQty = p.qty ?? taken;
  const rests = p.type === 'LIMIT_MAKER' || (p.type === 'LIMIT' && p.timeInForce === 'GTC');
  return { takes, origQty, rests, restingQty: rests ? origQty.minus(takes?.filledQty ?? ZERO) : ZERO };
}

/** The refusal when the free balance does not cover the order (docs/orders.md#locking), else null. */
function uncovered(p: ParsedPlacement, b: Balances, cost: Decimal, lock: Decimal, sells: Decimal): PlacementRefusal | null {
  if (p.side === 'BUY' && freeCash(b).lt(cost.plus(lock))) {
    return refuse('INSUFFICIENT_FUNDS', `free cash ${fmt(freeCash(b))} is below the ${fmt(cost.plus(lock))} this order needs (fills, fees and lock)`);
  }
  if (p.side === 'SELL' && freeQty(b, p.symbol).lt(sells)) {
    return refuse('INSUFFICIENT_POSITION', `free position ${fmt(freeQty(b, p.symbol))} ${p.symbol} is below the ${fmt(sells)} to sell`);
  }
  return null;
}

/** The commit of a placement, or its refusal (pure apart from reading the snapshot's consumed liquidity). */
function planPlacement(p: ParsedPlacement, at: PlacementAt): Plan | PlacementRefusal {
  const { account } = at.bundle;
  const [takerRate, makerRate] = [account.feeRate, account.makerFeeRate ?? account.feeRate];
  const t = taking(p, at.book);
  if (!('rests' in t)) return t;
  const lock = t.restingQty.isZero() ? ZERO : p.side === 'BUY' ? buyReserve(p.price ?? ZERO, t.restingQty, makerRate) : t.restingQty;
  const fills: (OrderFill & { fee: Decimal; gross: Decimal; filled: Decimal })[] = (t.takes?.fills ?? []).map((f, i) => {
    const fee = tradeFee(f.gross, takerRate);
    const [tradeId, bookTs] = [`${at.orderId}-${i + 1}`, at.book?.ts ?? 0];
    return {
      tradeId,
      price: fmt(f.price),
      qty: fmt(f.qty),
      quoteQty: fmt(f.gross),
      commission: fmt(fee),
      liquidity: 'TAKER',
      bookTs,
      time: at.now,
      fee,
      gross: f.gross,
      filled: f.qty,
    };
  });
  const cost = fills.reduce((a, x) => a.plus(x.gross).plus(x.fee), ZERO);
  const refusal = uncovered(p, at.bundle.balances, cost, lock, p.type === 'MARKET' && p.qty === null ? (t.takes?.filledQty ?? ZERO) : t.origQty);
  if (refusal) return refusal;
  const lockAsset = lock.isZero() ? null : p.side === 'BUY' ? 'USDT' : p.symbol;
  let order = engineOrderSteps.start({
    orderId: at.orderId,
    // the next place among the account's orders; a commit that conflicts is planned again from a fresh load
    number: at.bundle.lastIds.order + 1,
    accountId: account.id,
    clientOrderId: at.clientOrderId,
    symbol: p.symbol,
    side: p.side,
    type: p.type,
    timeInForce: p.timeInForce,
    price: p.price?.toFixed() ?? null,
    origQty: t.origQty.toFixed(),
    quoteOrderQty: p.quote?.toFixed() ?? null,
    makerRate: makerRate.toFixed(),
    takerRate: takerRate.toFixed(),
    lockAsset,
    locked: lock.toFixed(),
    restingQty: t.restingQty.toFixed(),
    createdAt: at.now,
  });
  const ts = new Date(at.now).toISOString();
  const [journal, trades] = [[] as JournalEntry[], [] as TradeRecord[]];
  let b = at.bundle.balances;
  for (const { fee, gross, filled, ...fill } of fills) {
    order = engineOrderSteps.send(order, { type: 'FILL', fill, release: '0' });
    const trade: TradeRecord = {
      ...fill,
      number: at.bundle.lastIds.trade + trades.length + 1,
      orderId: at.orderId,
      orderNumber: at.bundle.lastIds.order + 1,
      clientOrderId: at.clientOrderId,
      symbol: p.symbol,
      side: p.side,
      commissionAsset: 'USDT',
    };
    trades.push(trade);
    journal.push(tradeEntry(trade, ts));
    b = applyTrade(b, { symbol: p.symbol, side: p.side, qty: filled, gross, fee });
  }
  if (isOpen(order) && !t.rests) order = engineOrderSteps.send(order, { type: 'EXPIRE', time: at.now });
  if (lockAsset) {
    b = applyLock(b, lockAsset, lock);
    journal.push({ type: 'LOCK', ts, orderId: at.orderId, asset: lockAsset, amount: lock.toFixed() });
  }
  return {
    order,
    balances: b,
    journal,
    trades,
    fills: trades.map(({ tradeId, price, qty, quoteQty, commission, liquidity, bookTs, time }) => ({
      tradeId,
      price,
      qty,
      quoteQty,
      commission,
      liquidity,
      bookTs,
      time,
    })),
    walk: t.takes,
  };
}
