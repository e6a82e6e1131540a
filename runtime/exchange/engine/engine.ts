/**
 * The exchange's order engine (docs/orders.md): LIMIT (GTC / IOC / FOK), LIMIT_MAKER and MARKET
 * (by quantity or by quote amount) orders, cancel, and the reads a venue's API needs, on the same
 * ledger, books and journal as the native `/api/v1` market orders. A surface (the Binance-shaped
 * `/api/v3`, the native WebSocket) calls this module and maps its refusal codes.
 *
 * The process that runs it hands it every book the book cache kept (`onBook`), reloads resting
 * orders at start (`boot`), and publishes its events (`publish`, `onEvent`).
 *
 * @example
 *   const engine = createOrderEngine(ctx, { publish: (e) => events.publish(e) });
 *   await engine.boot();
 *   feed.onBook((b) => { if (ctx.books.put(b)) engine.onBook(b); });
 *   const placed = await engine.place({ accountId, symbol: 'SOLUSDT', side: 'BUY', type: 'LIMIT', quantity: '1', price: '149' });
 */
import type { BookSnapshot } from '../../../adapters/feed/port.ts';
import type { BookSymbol } from '../../../kernel/domain.ts';
import { isOpen, restoreEngineOrder } from '../../../machines/engine-order.ts';
import { dec } from '../../../machines/exchange/money.ts';
import type { ExchangeContext } from '../context.ts';
import type { ExchangeEvent } from '../events.ts';
import { cancelOrder } from './cancel.ts';
import type { EngineCore } from './core.ts';
import { matchBook } from './matching.ts';
import { placeOrder } from './placement.ts';
import { readAllOrders, readBalances, readOpenOrders, readOrder, readTrades } from './reads.ts';
import { RestingOrders } from './resting.ts';
import { commitRestingFill } from './resting-fills.ts';
import type { BalanceView, EngineResult, EventIds, NumberedTrade, OrderReadRef, OrderRef, OrderView, PlacedOrder, PlaceRequest } from './types.ts';

/** The engine's API. */
export interface OrderEngine {
  /** Places an order (docs/orders.md#placing). */
  place(req: PlaceRequest): Promise<EngineResult<PlacedOrder>>;
  /** Cancels an open order of the account on `symbol` (docs/orders.md#cancel); `cancelId`: the cancel's own client id, for its event. */
  cancel(accountId: string, symbol: BookSymbol, ref: OrderRef, cancelId?: string): Promise<EngineResult<OrderView>>;
  /** One order of the account on `symbol`. */
  order(accountId: string, symbol: BookSymbol, ref: OrderReadRef): Promise<EngineResult<OrderView>>;
  /** Open orders, on one symbol or all. */
  openOrders(accountId: string, symbol?: BookSymbol): Promise<EngineResult<OrderView[]>>;
  /** Every order of the account on `symbol`. */
  allOrders(accountId: string, symbol: BookSymbol): Promise<EngineResult<OrderView[]>>;
  /** The account's fills on `symbol`. */
  myTrades(accountId: string, symbol: BookSymbol): Promise<EngineResult<NumberedTrade[]>>;
  /** Free and locked balances. */
  balances(accountId: string): Promise<EngineResult<BalanceView[]>>;
  /** A book the cache kept (newer than the one before): fills the resting orders it reaches. */
  onBook(book: BookSnapshot): void;
  /** Reloads every open order of the store into matching; resolves with how many. */
  boot(): Promise<number>;
  /** Listens to every event the engine announces, an order event with its integer ids (docs/orders.md#ids); returns the unsubscribe. */
  onEvent(listener: (e: ExchangeEvent, ids: EventIds | null) => void): () => void;
  /** Resolves once every fill decided so far has landed (or was dropped). */
  settled(): Promise<void>;
  /** Orders listed for matching in this process. */
  readonly restingCount: number;
  /** Fills still waiting to land give up (their liquidity goes back); nothing new is matched. */
  stop(): void;
}

/** Options of the engine. */
export interface OrderEngineOptions {
  /** publishes an event (NATS: `exchange.<accountId>.<kind>`); a throw is logged, never fatal */
  publish?: (e: ExchangeEvent) => void;
  /** told of every resting fill that landed, with the `performance.now()` of its match (the bench) */
  onFill?: (matchedAt: number) => void;
}

/** Creates the engine of one exchange process. */
export function createOrderEngine(ctx: ExchangeContext, options: OrderEngineOptions = {}): OrderEngine {
  const listeners = new Set<(e: ExchangeEvent, ids: EventIds | null) => void>();
  const { publish } = options;
  if (publish) listeners.add((e) => publish(e));
  const pending = new Set<Promise<unknown>>();
  const core: EngineCore = {
    ctx,
    resting: new RestingOrders(),
    stopped: false,
    onFill: options.onFill,
    announce(events) {
      for (const { event: e, ids } of events)
        for (const l of listeners) {
          try {
            l(e, ids);
          } catch (err) {
            ctx.log.warn({ err: err instanceof Error ? err.message : err, kind: e.kind, accountId: e.accountId }, 'engine event not delivered');
          }
        }
    },
  };
  return {
    place: (req) => placeOrder(core, req),
    cancel: (accountId, symbol, ref, cancelId) => cancelOrder(core, accountId, symbol, ref, cancelId),
    order: (accountId, symbol, ref) => readOrder(ctx, accountId, symbol, ref),
    openOrders: (accountId, symbol) => readOpenOrders(ctx, accountId, symbol),
    allOrders: (accountId, symbol) => readAllOrders(ctx, accountId, symbol),
    myTrades: (accountId, symbol) => readTrades(ctx, accountId, symbol),
    balances: (accountId) => readBalances(ctx, accountId),
    onBook(book) {
      // a book already past the staleness cut-off when it arrives trades nothing (docs/exchange-api.md#symbols)
      if (core.stopped || !ctx.books.isFresh(book)) return;
      const matchedAt = performance.now();
      for (const m of matchBook(core.resting, book)) {
        const landing = commitRestingFill(core, m, matchedAt);
        pending.add(landing);
        void landing.finally(() => pending.delete(landing)).catch((err: unknown) => ctx.log.error({ err, orderId: m.entry.orderId }, 'resting fill failed'));
      }
    },
    async boot() {
      const open = await ctx.store.openEngineOrders();
      const orders = open.map((o) => restoreEngineOrder(o.state)).filter(isOpen);
      // earliest first, so orders at one price keep their time priority
      orders.sort((a, b) => a.context.createdAt - b.context.createdAt || a.context.orderId.localeCompare(b.context.orderId));
      for (const s of orders) {
        const c = s.context;
        if (core.resting.find(c.accountId, { orderId: c.orderId })) continue;
        core.resting.add({
          orderId: c.orderId,
          accountId: c.accountId,
          clientOrderId: c.clientOrderId,
          symbol: c.symbol,
          side: c.side,
          price: dec(c.price ?? '0'),
          unmatched: dec(c.origQty).minus(c.executedQty),
          snapshot: s,
        });
      }
      ctx.log.info({ resting: orders.length }, 'engine orders reloaded');
      return orders.length;
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async settled() {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
    get restingCount() {
      return core.resting.size;
    },
    stop() {
      core.stopped = true;
    },
  };
}
