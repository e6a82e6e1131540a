/**
 * Canceling an open engine order (docs/orders.md#cancel): the order leaves matching at once, then,
 * behind the account's fills already decided, its snapshot moves to CANCELED and its whole lock is
 * released, in one commit with the UNLOCK entry.
 */
import { ok, refuse } from '../../../kernel/refusal.ts';
import type { BookSymbol } from '../../../kernel/domain.ts';
import { engineOrderSteps, isOpen, restoreEngineOrder, statusOf } from '../../../machines/engine-order.ts';
import type { JournalEntry } from '../../../machines/exchange/journal.ts';
import { applyLock } from '../../../machines/exchange/ledger.ts';
import { dec } from '../../../machines/exchange/money.ts';
import { serialPerAccount } from '../account-queue.ts';
import { retryOnConflict } from '../outcome.ts';
import { orderWrite, type EngineCore } from './core.ts';
import { orderNumberOf } from './ids.ts';
import type { EngineResult, OrderRef, OrderView } from './types.ts';
import { balanceEvent, orderEvent, orderView } from './views.ts';

/** Names `ref` for a message. */
export const refText = (ref: OrderRef | { number: number }): string =>
  'orderId' in ref ? `order ${ref.orderId}` : 'clientOrderId' in ref ? `client order id ${JSON.stringify(ref.clientOrderId)}` : `order number ${ref.number}`;

/** Cancels the order `ref` of `accountId` on `symbol`; the answer is the canceled order. `cancelId` (the cancel's own client id) goes in its event. */
export async function cancelOrder(core: EngineCore, accountId: string, symbol: BookSymbol, ref: OrderRef, cancelId?: string): Promise<EngineResult<OrderView>> {
  const { ctx, resting } = core;
  const held = resting.find(accountId, ref);
  const mine = held && held.symbol === symbol ? held : undefined;
  // no new fills from the next book on, whatever the commit's fate
  if (mine) resting.unlist(mine);
  const out = await serialPerAccount(ctx.store, accountId, () =>
    retryOnConflict(async (): Promise<EngineResult<OrderView> | 'conflict'> => {
      const [loaded, stored] = await Promise.all([ctx.store.load(accountId), ctx.store.engineOrder(accountId, ref)]);
      if (!loaded) return refuse('ACCOUNT_NOT_FOUND', `account ${accountId} does not exist`);
      const order = stored === null ? null : restoreEngineOrder(stored);
      if (!order || order.context.symbol !== symbol) return refuse('UNKNOWN_ORDER', `${refText(ref)} is not an order of this account on ${symbol}`);
      if (!isOpen(order)) return refuse('ORDER_NOT_OPEN', `${refText(ref)} is ${statusOf(order)}: only an open order can be canceled`);
      const c = order.context;
      const now = ctx.now();
      const next = engineOrderSteps.send(order, { type: 'CANCEL', time: now.getTime() });
      const release = dec(c.locked);
      const journal: JournalEntry[] = [];
      let balances = loaded.bundle.balances;
      if (c.lockAsset && release.gt(0)) {
        balances = applyLock(balances, c.lockAsset, release.neg());
        journal.push({ type: 'UNLOCK', ts: now.toISOString(), orderId: c.orderId, asset: c.lockAsset, amount: release.toFixed() });
      }
      const committed = await ctx.store.commit(accountId, loaded.bundle.version, { balances, journal, engineOrders: [orderWrite(next)] });
      if (committed === 'conflict') return 'conflict';
      if (committed === 'missing') return refuse('ACCOUNT_NOT_FOUND', `account ${accountId} does not exist`);
      const entry = resting.find(accountId, { orderId: c.orderId });
      if (entry) resting.forget(entry);
      const number = await orderNumberOf(ctx.store, accountId, order);
      const ids = { order: number, trade: -1, ...(cancelId === undefined ? {} : { cancel: cancelId }) };
      core.announce([orderEvent(next, 'CANCELED', now.getTime(), ids), balanceEvent(accountId, balances, now.getTime())]);
      return ok(orderView(next, number));
    }),
  ).catch((err: unknown) => {
    if (mine && mine.unmatched.gt(0)) resting.relist(mine);
    throw err;
  });
  // refused while still open here (another symbol named, say): it goes on resting
  if (!out.ok && mine && out.code !== 'ORDER_NOT_OPEN' && mine.unmatched.gt(0) && isOpen(mine.snapshot)) resting.relist(mine);
  return out;
}
