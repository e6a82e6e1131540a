/**
 * Order placement: each order runs as an actor of `machines/order.ts`; pricing reads the book
 * in memory, and execution is two round trips to the store: one load (account, positions,
 * idempotency record) and one versioned commit of cash, position, order, fills, journal entry,
 * equity point, idempotency record and the order's final state (spec §1.6, §3, §4; design:
 * partial fills, idempotency). Nothing else is written per order: an order that did not commit
 * left nothing behind, and a retry with its Idempotency-Key never trades twice.
 *
 * Sufficiency rule: a BUY is refused whole (INSUFFICIENT_FUNDS) when cash is below
 * gross + fee of what would actually fill now; a SELL is refused whole
 * (INSUFFICIENT_POSITION) when the position is below the requested qty.
 */
import { randomUUID } from 'node:crypto';
import { createActor, fromPromise, toPromise } from 'xstate';
import { DependencyUnavailable, type Dependency } from '../../adapters/dependency.ts';
import type { BookSnapshot, BookSymbol } from '../../adapters/feed/port.ts';
import type { IdempotencyRecord, OrderRecord } from '../../adapters/store/exchange-port.ts';
import { orderMachine, type Execution, type OrderRequest, type Pricing, type Refusal } from '../../machines/order.ts';
import { totalsOf } from './accounts.ts';
import type { ExchangeContext } from './context.ts';
import { serialPerAccount } from './account-queue.ts';
import { applyTrade, flatPosition, tradeFee, type TradeFacts } from '../../machines/exchange/ledger.ts';
import { dec, fmt } from '../../machines/exchange/money.ts';
import { ok, refuse, retryOnConflict, type Outcome } from './outcome.ts';
import { equityPointOf } from './views.ts';
import { walkBook } from './walk-book.ts';

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

/** Canonical form of an order body: a repeat with an equal quantity ("1" = "1.0") is the same body. */
const fingerprintOf = (p: PlaceOrder): string => JSON.stringify([p.symbol, p.side, dec(p.qty).toFixed()]);

/** Storage key of an order's idempotency record (client keys and order ids never collide). */
export const dedupeKeyOf = (idempotencyKey: string | null, orderId: string): string =>
  idempotencyKey === null ? `order:${orderId}` : `key:${idempotencyKey}`;

function answerRepeat(idem: IdempotencyRecord, fingerprint: string, orderId?: string): Execution {
  // This very order committed before a restart: its execution is done, not a repeat.
  const status = idem.body.status;
  if (idem.body.orderId === orderId && (status === 'FILLED' || status === 'PARTIALLY_FILLED')) return { kind: 'executed', status, result: idem.body };
  if (idem.fingerprint !== fingerprint) {
    return { kind: 'refused', refusal: { code: 'IDEMPOTENCY_KEY_REUSED', message: 'this Idempotency-Key was used with a different order body' } };
  }
  return { kind: 'replayed', httpStatus: idem.status, result: idem.body };
}

/** Pricing effect: only a book no older than the cut-off is used (spec §1.6). */
function priceWith(ctx: ExchangeContext) {
  return async ({ input }: { input: { symbol: BookSymbol } }): Promise<Pricing> => {
    const book = ctx.books.fresh(input.symbol);
    if (!book) return { ok: false, refusal: { code: 'PRICE_UNAVAILABLE', message: `no order book for ${input.symbol} newer than the staleness cut-off` } };
    return { ok: true, book };
  };
}

/** Execution effect: walk, check, commit; retried from a fresh read when another writer won. */
function executeWith(ctx: ExchangeContext) {
  return async ({ input }: { input: { request: OrderRequest; book: BookSnapshot } }): Promise<Execution> => {
    const { request: r, book } = input;
    const refused = (code: Refusal['code'], message: string): Execution => ({ kind: 'refused', refusal: { code, message } });
    return serialPerAccount(ctx.store, r.accountId, () => retryOnConflict(async () => {
      const loaded = await ctx.store.load(r.accountId, r.dedupeKey);
      if (!loaded) return refused('ACCOUNT_NOT_FOUND', `account ${r.accountId} does not exist`);
      if (loaded.idempotency) return answerRepeat(loaded.idempotency, r.fingerprint, r.orderId);
      // The book was fresh when priced; it must still be when executed (also after a restart).
      if (!ctx.books.isFresh(book)) return refused('PRICE_UNAVAILABLE', `the ${r.symbol} book priced for this order is older than the staleness cut-off`);
      const { bundle } = loaded;
      const requested = dec(r.qty);
      const walk = walkBook(book, r.side, requested);
      if (walk.filledQty.isZero()) return refused('PRICE_UNAVAILABLE', `the ${r.side === 'BUY' ? 'ask' : 'bid'} side of ${r.symbol} is empty`);
      const fee = tradeFee(walk.gross, bundle.account.feeRate);
      const before = bundle.balances.positions[r.symbol] ?? flatPosition(r.symbol);
      if (r.side === 'BUY' && bundle.balances.cash.lt(walk.gross.plus(fee))) {
        return refused('INSUFFICIENT_FUNDS', `cash ${fmt(bundle.balances.cash)} is below cost ${fmt(walk.gross.plus(fee))} (gross + fee)`);
      }
      if (r.side === 'SELL' && before.qty.lt(requested)) {
        return refused('INSUFFICIENT_POSITION', `position ${fmt(before.qty)} ${r.symbol} is below the ${fmt(requested)} to sell`);
      }
      const now = ctx.now();
      const trade: TradeFacts = { symbol: r.symbol, side: r.side, qty: walk.filledQty, gross: walk.gross, fee };
      const balances = applyTrade(bundle.balances, trade);
      const status = walk.partial ? 'PARTIALLY_FILLED' : 'FILLED';
      const result: Record<string, string> = {
        orderId: r.orderId,
        status,
        symbol: r.symbol,
        side: r.side,
        qty: fmt(walk.filledQty),
        requestedQty: fmt(requested),
        price: fmt(walk.avgPrice),
        gross: fmt(walk.gross),
        fee: fmt(fee),
        cash: fmt(balances.cash),
        positionQty: fmt(balances.positions[r.symbol]?.qty ?? before.qty),
      };
      const order: OrderRecord = {
        orderId: r.orderId,
        accountId: r.accountId,
        status,
        symbol: r.symbol,
        side: r.side,
        requestedQty: result.requestedQty as string,
        qty: result.qty as string,
        price: result.price as string,
        gross: result.gross as string,
        fee: result.fee as string,
        cash: result.cash as string,
        positionQty: result.positionQty as string,
        idempotencyKey: r.idempotencyKey,
        createdAt: now.toISOString(),
        fills: walk.fills.map((f) => ({ price: fmt(f.price), qty: fmt(f.qty), gross: fmt(f.gross) })),
      };
      const execution: Execution = { kind: 'executed', status, result };
      const out = await ctx.store.commit(r.accountId, bundle.version, {
        balances,
        journal: [{ type: 'TRADE', ts: order.createdAt, orderId: r.orderId, symbol: r.symbol, side: r.side, qty: walk.filledQty.toFixed(), gross: walk.gross.toFixed(), fee: fee.toFixed() }],
        order,
        equityPoint: equityPointOf(now, balances, totalsOf(ctx, bundle, balances)),
        idempotency: { key: r.dedupeKey, record: { fingerprint: r.fingerprint, status: 201, body: result } },
        orderState: { orderId: r.orderId, state: finalOrderState(r, execution) },
      });
      if (out === 'conflict') return 'conflict';
      if (out === 'missing') return refused('ACCOUNT_NOT_FOUND', `account ${r.accountId} does not exist`);
      ctx.log.info({ accountId: r.accountId, orderId: r.orderId, status, symbol: r.symbol, side: r.side, qty: result.qty, price: result.price }, 'order executed');
      return execution;
    }));
  };
}

const logicOf = new WeakMap<ExchangeContext, ReturnType<typeof provideEffects>>();
const provideEffects = (ctx: ExchangeContext) =>
  orderMachine.provide({ actors: { priceOrder: fromPromise(priceWith(ctx)), executeOrder: fromPromise(executeWith(ctx)) } });

/** The order machine with the runtime's effects, built once per context (`provide` rebuilds the machine). */
export function orderLogic(ctx: ExchangeContext): ReturnType<typeof provideEffects> {
  let logic = logicOf.get(ctx);
  if (!logic) logicOf.set(ctx, (logic = provideEffects(ctx)));
  return logic;
}

/**
 * The order's final state as its commit saves it: the state the actor reaches on this execution
 * and what it knows then, without the book (design: "the book is not part of the persisted context").
 */
export function finalOrderState(request: OrderRequest, execution: Execution & { kind: 'executed' }) {
  return { status: 'done' as const, value: execution.status === 'FILLED' ? 'filled' : 'partiallyFilled', context: { request, execution } };
}

/** Runs an order actor from the start to its end. */
export async function runOrderActor(ctx: ExchangeContext, request: OrderRequest) {
  const actor = createActor(orderLogic(ctx), { input: request });
  actor.start();
  await toPromise(actor).catch(() => undefined);
  return actor.getSnapshot();
}

/**
 * Places a market order. A repeated Idempotency-Key answers the original result without
 * trading (also when the book has gone stale since); a different body under it is refused.
 */
export async function placeOrder(ctx: ExchangeContext, p: PlaceOrder): Promise<Outcome<OrderReply>> {
  const fingerprint = fingerprintOf(p);
  const orderId = randomUUID();
  const request: OrderRequest = { ...p, orderId, fingerprint, dedupeKey: dedupeKeyOf(p.idempotencyKey, orderId) };
  const snap = await runOrderActor(ctx, request);
  const { execution, refusal, failure, unavailable } = snap.context;
  if (execution && execution.kind !== 'refused') {
    return ok({ httpStatus: execution.kind === 'replayed' ? execution.httpStatus : 201, body: execution.result, replayed: execution.kind === 'replayed' });
  }
  // refused before execution read the account (no fresh book): an unknown account and a repeat still answer as such
  if (refusal && snap.context.book === null) {
    const loaded = await ctx.store.load(p.accountId, p.idempotencyKey === null ? undefined : request.dedupeKey);
    if (!loaded) return refuse('ACCOUNT_NOT_FOUND', `account ${p.accountId} does not exist`);
    if (loaded.idempotency) {
      const e = answerRepeat(loaded.idempotency, fingerprint);
      if (e.kind === 'replayed') return ok({ httpStatus: e.httpStatus, body: e.result, replayed: true });
      if (e.kind === 'refused') return refuse(e.refusal.code, e.refusal.message);
    }
  }
  if (refusal) return refuse(refusal.code, refusal.message);
  if (unavailable) throw new DependencyUnavailable(unavailable as Dependency, `order ${orderId} not executed: ${failure ?? `${unavailable} is unavailable`}`);
  throw new Error(`order ${orderId} failed: ${failure ?? `ended in ${String(snap.value)}`}`);
}
