/**
 * Executing a priced market order against one account: walk the book, check sufficiency, and
 * commit cash, position, order, fills, journal entry, equity point, idempotency record and the
 * order's final state in one versioned commit (docs/exchange-api.md#orders,
 * docs/exchange-api.md#idempotency; docs/decisions.md#order-execution).
 *
 * An order with an Idempotency-Key loads the account and the key's record together, then
 * commits (two round trips), and its commit writes the record. An order without one runs once,
 * in the request that placed it, so it writes no record; it starts from the account as this
 * process last knew it (`account-cache.ts`) and usually reaches the store once, to commit.
 *
 * Sufficiency rule: a BUY is refused whole (INSUFFICIENT_FUNDS) when cash is below
 * gross + fee of what would actually fill now; a SELL is refused whole
 * (INSUFFICIENT_POSITION) when the position is below the requested qty.
 */
import { refuse } from '../../kernel/refusal.ts';
import type { BookSnapshot } from '../../adapters/feed/port.ts';
import type { AccountBundle, IdempotencyRecord, OrderRecord } from '../../adapters/store/exchange/port.ts';
import { applyTrade, flatPosition, freeCash, freeQty, tradeFee, type TradeFacts } from '../../machines/exchange/ledger.ts';
import { dec, fmt } from '../../machines/exchange/money.ts';
import { executedOrder, orderSteps, type Execution, type OrderRequest, type OrderSnapshot, type Refusal } from '../../machines/order.ts';
import { accountCacheOf } from './account-cache.ts';
import { serialPerAccount } from './account-queue.ts';
import type { ExchangeContext } from './context.ts';
import { retryOnConflict } from './outcome.ts';
import { equityTotals } from './valuation.ts';
import { equityPointOf } from './views.ts';
import { consume, giveBack, walkBook, type Fill } from './walk-book.ts';

/** Storage key of the idempotency record of a client's Idempotency-Key (none without one). */
export const recordKeyOf = (idempotencyKey: string | null): string | undefined => (idempotencyKey === null ? undefined : `key:${idempotencyKey}`);

const refused = (code: Refusal['code'], message: string): Execution => ({ kind: 'refused', refusal: refuse(code, message) });

/** The answer to a request whose key already has a record: its first answer, or a refusal when the body differs. */
export function answerRepeat(idem: IdempotencyRecord, fingerprint: string): Execution {
  if (idem.fingerprint !== fingerprint) {
    return refused('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used with a different order body');
  }
  return { kind: 'replayed', httpStatus: idem.status, result: idem.body };
}

/** A trade that may be committed: what it writes, and the execution it answers. */
interface Trade {
  execution: Execution & { kind: 'executed' };
  order: OrderRecord;
  facts: TradeFacts;
  balances: AccountBundle['balances'];
  /** the levels it takes from the snapshot */
  taken: Fill[];
}

/** The trade `r` makes on `bundle` at `book`, or the refusal (pure). */
function planTrade(ctx: ExchangeContext, r: OrderRequest, book: BookSnapshot, bundle: AccountBundle, now: Date): Trade | Execution {
  // The book was fresh when priced; it must still be when executed.
  if (!ctx.books.isFresh(book)) return refused('PRICE_UNAVAILABLE', `the ${r.symbol} book priced for this order is older than the staleness cut-off`);
  const requested = dec(r.qty);
  const walk = walkBook(book, r.side, requested);
  if (walk.filledQty.isZero()) {
    return refused('PRICE_UNAVAILABLE', `the ${r.side === 'BUY' ? 'ask' : 'bid'} side of ${r.symbol} has nothing left to take in this snapshot`);
  }
  const fee = tradeFee(walk.gross, bundle.account.feeRate);
  const before = bundle.balances.positions[r.symbol] ?? flatPosition(r.symbol);
  const cost = walk.gross.plus(fee);
  const free = freeCash(bundle.balances);
  if (r.side === 'BUY' && free.lt(cost)) {
    return refused('INSUFFICIENT_FUNDS', `free cash ${fmt(free)} is below cost ${fmt(cost)} (gross + fee)`);
  }
  const freePosition = freeQty(bundle.balances, r.symbol);
  if (r.side === 'SELL' && freePosition.lt(requested)) {
    return refused('INSUFFICIENT_POSITION', `free position ${fmt(freePosition)} ${r.symbol} is below the ${fmt(requested)} to sell`);
  }
  const facts: TradeFacts = { symbol: r.symbol, side: r.side, qty: walk.filledQty, gross: walk.gross, fee };
  const balances = applyTrade(bundle.balances, facts);
  const status = walk.partial ? 'PARTIALLY_FILLED' : 'FILLED';
  // a whole fill took exactly what was asked, and one level's fill is the whole walk: their texts are made once
  const qty = fmt(walk.filledQty);
  const gross = fmt(walk.gross);
  const order: OrderRecord = {
    orderId: r.orderId,
    accountId: r.accountId,
    status,
    symbol: r.symbol,
    side: r.side,
    requestedQty: walk.partial ? fmt(requested) : qty,
    qty,
    price: fmt(walk.avgPrice),
    gross,
    fee: fmt(fee),
    cash: fmt(balances.cash),
    positionQty: fmt(balances.positions[r.symbol]?.qty ?? before.qty),
    idempotencyKey: r.idempotencyKey,
    createdAt: now.toISOString(),
    fills:
      walk.fills.length === 1
        ? [{ price: fmt((walk.fills[0] as Fill).price), qty, gross }]
        : walk.fills.map((f) => ({ price: fmt(f.price), qty: fmt(f.qty), gross: fmt(f.gross) })),
  };
  const result: Record<string, string> = {
    orderId: order.orderId,
    status,
    symbol: order.symbol,
    side: order.side,
    qty: order.qty,
    requestedQty: order.requestedQty,
    price: order.price,
    gross: order.gross,
    fee: order.fee,
    cash: order.cash,
    positionQty: order.positionQty,
  };
  return { execution: { kind: 'executed', status, result }, order, facts, balances, taken: walk.fills };
}

const isTrade = (x: Trade | Execution): x is Trade => 'order' in x;

/** An execution, and the state the order ended in when its trade was committed (with that state). */
export interface Executed {
  execution: Execution;
  /** the order's final snapshot as committed with the trade; null when nothing was committed */
  committed: OrderSnapshot | null;
}

/**
 * Executes `r` at `book` from the `priced` state of its run; the state it ends in (a pure step of
 * the order machine) is saved with the trade. Retried from a fresh read when another writer
 * committed first.
 */
export function executeOrder(ctx: ExchangeContext, r: OrderRequest, book: BookSnapshot, priced: OrderSnapshot): Promise<Executed> {
  const cache = accountCacheOf(ctx.store);
  const recordKey = recordKeyOf(r.idempotencyKey);
  return serialPerAccount(ctx.store, r.accountId, () =>
    retryOnConflict(async (): Promise<Executed | 'conflict'> => {
      const now = ctx.now();
      let bundle = recordKey === undefined ? cache.get(r.accountId) : undefined;
      let plan = bundle ? planTrade(ctx, r, book, bundle, now) : undefined;
      // a refusal is only answered from what the store holds now, never from the cache
      if (!bundle || !plan || !isTrade(plan)) {
        const loaded = await ctx.store.load(r.accountId, recordKey);
        if (!loaded) {
          cache.drop(r.accountId);
          return { execution: refused('ACCOUNT_NOT_FOUND', `account ${r.accountId} does not exist`), committed: null };
        }
        cache.set(r.accountId, loaded.bundle);
        if (loaded.idempotency) return { execution: answerRepeat(loaded.idempotency, r.fingerprint), committed: null };
        bundle = loaded.bundle;
        plan = planTrade(ctx, r, book, bundle, now);
        if (!isTrade(plan)) return { execution: plan, committed: null };
      }
      const { execution, order, facts, balances, taken } = plan;
      const ended = executedOrder(priced, execution);
      // taken now, before the commit's await: a concurrent order on this snapshot sees the rest
      consume(book, r.side, taken);
      let out: Awaited<ReturnType<ExchangeContext['store']['commit']>>;
      try {
        out = await ctx.store.commit(r.accountId, bundle.version, {
          balances,
          journal: [
            {
              type: 'TRADE',
              ts: order.createdAt,
              orderId: r.orderId,
              symbol: r.symbol,
              side: r.side,
              qty: facts.qty.toFixed(),
              gross: facts.gross.toFixed(),
              fee: facts.fee.toFixed(),
            },
          ],
          order,
          equityPoint: equityPointOf(now, balances, equityTotals(balances, ctx.books.bids())),
          ...(recordKey === undefined ? {} : { idempotency: { key: recordKey, record: { fingerprint: r.fingerprint, status: 201, body: execution.result } } }),
          orderState: { orderId: r.orderId, state: orderSteps.persist(ended) },
        });
      } catch (err) {
        giveBack(book, r.side, taken);
        throw err;
      }
      if (out !== 'committed') {
        giveBack(book, r.side, taken);
        cache.drop(r.accountId);
        return out === 'conflict' ? 'conflict' : { execution: refused('ACCOUNT_NOT_FOUND', `account ${r.accountId} does not exist`), committed: null };
      }
      cache.set(r.accountId, { ...bundle, balances, version: bundle.version + 1 });
      // built only when logged (an exchange run at LOG_LEVEL=warn spends nothing on it per order)
      if (ctx.log.isLevelEnabled('info')) {
        ctx.log.info(
          { accountId: r.accountId, orderId: r.orderId, status: execution.status, symbol: r.symbol, side: r.side, qty: order.qty, price: order.price },
          'order executed',
        );
      }
      return { execution, committed: ended };
    }),
  );
}
