/**
 * Resumes orders a previous process left unfinished (design: "persisted on every transition
 * ... a restarted process rehydrates and carries on"). Each is restored from its persisted
 * snapshot and run to its end: an order that committed before the crash ends filled (the
 * commit's idempotency record answers), one that did not is re-priced or re-checked and
 * refused when its book is no longer fresh, so nothing trades twice or at an old price.
 */
import * as v from 'valibot';
import type { Snapshot } from 'xstate';
import type { OrderRequest } from '../../machines/order.ts';
import type { ExchangeContext } from './context.ts';
import { runOrderActor } from './orders.ts';

const Unfinished = v.object({
  status: v.literal('active'),
  value: v.string(),
  context: v.object({ request: v.looseObject({ orderId: v.string(), accountId: v.string() }) }),
});

/** Runs every unfinished order of every account to its end; returns how each ended. */
export async function resumeUnfinishedOrders(ctx: ExchangeContext): Promise<{ orderId: string; state: string }[]> {
  const ended: { orderId: string; state: string }[] = [];
  for (const accountId of await ctx.store.listAccountIds()) {
    for (const { orderId, snapshot } of await ctx.store.unfinishedOrderStates(accountId)) {
      const parsed = v.safeParse(Unfinished, snapshot);
      if (!parsed.success) continue;
      const request = parsed.output.context.request as unknown as OrderRequest;
      const end = await runOrderActor(ctx, request, snapshot as Snapshot<unknown>);
      ctx.log.info({ accountId, orderId, from: parsed.output.value, to: end.value }, 'unfinished order resumed');
      ended.push({ orderId, state: String(end.value) });
    }
  }
  return ended;
}
