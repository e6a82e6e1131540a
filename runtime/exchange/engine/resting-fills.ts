/**
 * Committing the fills a book gave resting orders (docs/orders.md#resting-fills): each fill is one
 * commit of its account, queued behind the account's other changes: the trade at the order's limit
 * price with the maker fee (priced cumulatively, `machines/exchange/order-money.ts`), the release of
 * the lock it used, the order's new snapshot, the fill record with the book's time, an equity point.
 *
 * The order's stored snapshot is read with the account: a fill computed from a snapshot some other
 * writer has moved on (another process holding the same order) is dropped, and the order taken up
 * again from the store, so a fill is never applied twice. A commit that fails (the store is down) is
 * retried with backoff until it lands or the engine stops; what a fill that never landed took from
 * the snapshot goes back to it.
 */
import { engineOrderSteps, isOpen, restoreEngineOrder, type OrderFill } from '../../../machines/engine-order.ts';
import type { JournalEntry } from '../../../machines/exchange/journal.ts';
import { applyLock, applyTrade } from '../../../machines/exchange/ledger.ts';
import { dec, fmt } from '../../../machines/exchange/money.ts';
import { makerFill } from '../../../machines/exchange/order-money.ts';
import { serialPerAccount } from '../account-queue.ts';
import { totalsOf } from '../accounts.ts';
import { retryOnConflict } from '../outcome.ts';
import { equityPointOf } from '../views.ts';
import { giveBack } from '../walk-book.ts';
import type { TradeRecord } from '../../../adapters/store/exchange/port.ts';
import { orderWrite, tradeEntry, type EngineCore } from './core.ts';
import { orderNumberOf } from './ids.ts';
import type { MatchedFill } from './matching.ts';
import { balanceEvent, orderEvent } from './views.ts';
import { backoffMs, type RetryPolicy } from '../../../kernel/backoff.ts';
import { setTimeout as sleep } from 'node:timers/promises';

/** delays between attempts of a resting fill that did not land */
const RESTING_FILL_RETRY: RetryPolicy = { baseMs: 500, maxMs: 30_000 };

/** What became of a fill. */
export type FillOutcome = 'committed' | 'dropped';

/** Queues the commit of `m` behind its account's other changes; resolves once it landed or was dropped. */
export function commitRestingFill(core: EngineCore, m: MatchedFill, matchedAt: number): Promise<FillOutcome> {
  const { ctx } = core;
  const drop = (): FillOutcome => {
    giveBack(m.book, m.entry.side, m.levels);
    return 'dropped';
  };
  return serialPerAccount(ctx.store, m.entry.accountId, async () => {
    for (let attempt = 0; ; attempt++) {
      if (core.stopped) return drop();
      try {
        return await retryOnConflict(() => attemptFill(core, m, matchedAt, drop));
      } catch (err) {
        ctx.log.warn({ err: err instanceof Error ? err.message : err, orderId: m.entry.orderId, attempt }, 'a resting fill did not land; retrying');
        await sleep(backoffMs(attempt + 1, RESTING_FILL_RETRY));
      }
    }
  });
}

/** One try at committing `m`: its outcome, or `conflict` when another writer committed first. */
async function attemptFill(core: EngineCore, m: MatchedFill, matchedAt: number, drop: () => FillOutcome): Promise<FillOutcome | 'conflict'> {
  const { ctx, resting } = core;
  const { entry } = m;
  const [loaded, stored] = await Promise.all([ctx.store.load(entry.accountId), ctx.store.engineOrder(entry.accountId, { orderId: entry.orderId })]);
  if (!loaded || stored === null) {
    resting.forget(entry);
    return drop();
  }
  const current = restoreEngineOrder(stored);
  if (current.context.fills !== entry.snapshot.context.fills || !isOpen(current)) {
    // moved on elsewhere: the store's order is the truth, this fill is not made
    entry.snapshot = current;
    entry.unmatched = isOpen(current) ? dec(current.context.origQty).minus(current.context.executedQty) : dec('0');
    if (isOpen(current)) resting.relist(entry);
    else resting.forget(entry);
    return drop();
  }
  const c = current.context;
  const price = dec(c.price ?? '0');
  const { gross, fee } = makerFill(price, dec(c.restFilledQty), m.qty, dec(c.makerRate));
  const completes = dec(c.executedQty).plus(m.qty).eq(c.origQty);
  const release = completes ? dec(c.locked) : c.side === 'BUY' ? gross.plus(fee) : m.qty;
  const now = ctx.now();
  const fill: OrderFill = {
    tradeId: `${c.orderId}-${c.fills + 1}`,
    price: fmt(price),
    qty: fmt(m.qty),
    quoteQty: fmt(gross),
    commission: fmt(fee),
    liquidity: 'MAKER',
    bookTs: m.bookTs,
    time: now.getTime(),
  };
  const next = engineOrderSteps.send(current, { type: 'FILL', fill, release: release.toFixed() });
  const number = await orderNumberOf(ctx.store, entry.accountId, current);
  // the fill's id: the next place among the account's fills (a commit that conflicts is computed again from a fresh load)
  const tradeNumber = loaded.bundle.lastIds.trade + 1;
  const trade: TradeRecord = {
    ...fill,
    number: tradeNumber,
    orderId: c.orderId,
    orderNumber: number,
    clientOrderId: c.clientOrderId,
    symbol: c.symbol,
    side: c.side,
    commissionAsset: 'USDT',
  };
  const journal: JournalEntry[] = [tradeEntry(trade, now.toISOString())];
  let balances = applyTrade(loaded.bundle.balances, { symbol: c.symbol, side: c.side, qty: m.qty, gross, fee });
  if (c.lockAsset && release.gt(0)) {
    balances = applyLock(balances, c.lockAsset, release.neg());
    journal.push({ type: 'UNLOCK', ts: now.toISOString(), orderId: c.orderId, asset: c.lockAsset, amount: release.toFixed() });
  }
  const out = await ctx.store.commit(entry.accountId, loaded.bundle.version, {
    balances,
    journal,
    engineOrders: [orderWrite(next)],
    trades: [trade],
    equityPoint: equityPointOf(now, balances, totalsOf(ctx, loaded.bundle, balances)),
  });
  if (out === 'conflict') return 'conflict';
  if (out === 'missing') {
    resting.forget(entry);
    return drop();
  }
  entry.snapshot = next;
  if (!isOpen(next)) resting.forget(entry);
  const ids = { order: number, trade: tradeNumber };
  core.announce([orderEvent(next, 'TRADE', now.getTime(), ids), balanceEvent(c.accountId, balances, now.getTime())]);
  core.onFill?.(matchedAt);
  return 'committed';
}
