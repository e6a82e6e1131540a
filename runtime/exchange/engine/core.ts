/**
 * What the parts of the order engine share (docs/orders.md): the exchange context, the resting
 * orders of this process, the event announcer, and helpers every commit of an engine order uses.
 */
import type { EngineOrderWrite, TradeRecord } from '../../../adapters/store/exchange/port.ts';
import { engineOrderSteps, isOpen, type EngineOrderSnapshot } from '../../../machines/engine-order.ts';
import type { JournalEntry } from '../../../machines/exchange/journal.ts';
import type { ExchangeContext } from '../context.ts';
import type { RestingOrders } from './resting.ts';
import type { Announced } from './views.ts';

/** The engine's shared state. */
export interface EngineCore {
  ctx: ExchangeContext;
  resting: RestingOrders;
  /** publishes events after their commit, order events with their integer ids (never throws) */
  announce(events: Announced[]): void;
  /** set by `stop`: fills still waiting to land give up */
  stopped: boolean;
  /** told of every resting fill that landed, with when its book was matched (`performance.now()`) */
  onFill?: ((matchedAt: number) => void) | undefined;
}

/** The store write of an order's snapshot. */
export const orderWrite = (s: EngineOrderSnapshot): EngineOrderWrite => ({
  orderId: s.context.orderId,
  clientOrderId: s.context.clientOrderId,
  symbol: s.context.symbol,
  open: isOpen(s),
  state: engineOrderSteps.persist(s),
});

/** The journal entry of one fill (the ledger's TRADE). */
export const tradeEntry = (t: TradeRecord, ts: string): JournalEntry => ({
  type: 'TRADE',
  ts,
  orderId: t.orderId,
  symbol: t.symbol,
  side: t.side,
  qty: t.qty,
  gross: t.quoteQty,
  fee: t.commission,
});

/** Positive decimal with at most 10 fraction digits (docs/orders.md#placing). */
export const POSITIVE_DECIMAL = /^(?:0|[1-9]\d{0,29})(?:\.\d{1,10})?$/;
