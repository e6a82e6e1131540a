/**
 * Order placement: each order is a run of `machines/order.ts`, stepped by this module with the
 * outcome of each effect: pricing reads the book in memory, execution (`order-execution.ts`)
 * commits the trade with the order's final state in one write (docs/exchange-api.md#orders).
 * Nothing else is written per order: an order that did not commit left nothing behind, and a retry
 * with its Idempotency-Key never trades twice.
 */
import { randomUUID } from 'node:crypto';
import { DependencyUnavailable, type Dependency } from '../../kernel/errors.ts';
import { dec } from '../../machines/exchange/money.ts';
import { executedOrder, orderSteps, type OrderEvent, type OrderRequest, type OrderSnapshot } from '../../machines/order.ts';

import type { ExchangeContext } from './context.ts';
import { answerRepeat, executeOrder, recordKeyOf } from './order-execution.ts';
import { ok, refuse } from '../../kernel/refusal.ts';
import type { Outcome } from './outcome.ts';
import type { BookSymbol } from '../../kernel/domain.ts';

/** A validated order placement. */
export interface PlaceOrder {
  accountId: string;
  symbol: BookSymbol;
  side: 'BUY' | 'SELL';
  qty: string;
  idempotencyKey: string | null;
}

/** The HTTP answer to an order: the status (201 first time, the original on a repeat) and body. */
export interface OrderReply {
  httpStatus: number;
  body: Record<string, string>;
  /** answered from an earlier result of the same Idempotency-Key (no trade now) */
  replayed: boolean;
}

const order = orderSteps;

/** Canonical form of an order body: a repeat with an equal quantity ("1" = "1.0") is the same body. */
const fingerprintOf = (p: PlaceOrder): string => JSON.stringify([p.symbol, p.side, dec(p.qty).toFixed()]);

/** The event that reports a failed effect: its message, and the dependency when an outage caused it. */
function failure(error: unknown): OrderEvent {
  const dep = (error as { dependency?: unknown } | null)?.dependency;
  return { type: 'FAILED', failure: String(error), unavailable: typeof dep === 'string' ? dep : null };
}

/**
 * Runs an order from `received` to its end: prices it from the book in memory (only a book no older
 * than the cut-off, docs/exchange-api.md#symbols) and executes it. Resolves with the final
 * snapshot; a failed effect ends in `failed`, never in a rejection.
 */
export async function runOrder(ctx: ExchangeContext, request: OrderRequest): Promise<OrderSnapshot> {
  const received = order.start(request);
  const book = ctx.books.fresh(request.symbol);
  if (!book) {
    return order.send(received, {
      type: 'UNPRICED',
      refusal: refuse('PRICE_UNAVAILABLE', `no order book for ${request.symbol} newer than the staleness cut-off`),
    });
  }
  const priced = order.send(received, { type: 'PRICED', bookTs: book.ts });
  try {
    // a committed trade saved the state it ends in: that is the order's final state
    const { execution, committed } = await executeOrder(ctx, request, book, priced);
    return committed ?? executedOrder(priced, execution);
  } catch (err) {
    return order.send(priced, failure(err));
  }
}

/**
 * Places a market order. A repeated Idempotency-Key answers the original result without
 * trading (also when the book has gone stale since); a different body under it is refused.
 */
export async function placeOrder(ctx: ExchangeContext, p: PlaceOrder): Promise<Outcome<OrderReply>> {
  const fingerprint = fingerprintOf(p);
  const orderId = randomUUID();
  const request: OrderRequest = { ...p, orderId, fingerprint };
  const snap = await runOrder(ctx, request);
  const { execution, refusal, failure: failed, unavailable, bookTs } = snap.context;
  if (execution && execution.kind !== 'refused') {
    return ok({ httpStatus: execution.kind === 'replayed' ? execution.httpStatus : 201, body: execution.result, replayed: execution.kind === 'replayed' });
  }
  // refused before execution read the account (no fresh book): an unknown account and a repeat still answer as such
  if (refusal && bookTs === null) {
    const loaded = await ctx.store.load(p.accountId, recordKeyOf(p.idempotencyKey));
    if (!loaded) return refuse('ACCOUNT_NOT_FOUND', `account ${p.accountId} does not exist`);
    if (loaded.idempotency) {
      const e = answerRepeat(loaded.idempotency, fingerprint);
      if (e.kind === 'replayed') return ok({ httpStatus: e.httpStatus, body: e.result, replayed: true });
      if (e.kind === 'refused') return refuse(e.refusal.code, e.refusal.message);
    }
  }
  if (refusal) return refuse(refusal.code, refusal.message);
  if (unavailable) throw new DependencyUnavailable(unavailable as Dependency, `order ${orderId} not executed: ${failed ?? `${unavailable} is unavailable`}`);
  throw new Error(`order ${orderId} failed: ${failed ?? `ended in ${String(snap.value)}`}`);
}
