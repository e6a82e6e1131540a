/**
 * An order of the exchange's order engine (docs/orders.md) as an XState v5 machine:
 * new -> partiallyFilled -> filled, and canceled / expired from either open state. Pure: the
 * engine decides every fill, lock release, cancel and expiry and reports it as an event; the
 * machine keeps the order's record (its context, JSON-safe: decimals as strings) and is stepped
 * with `machines/stepper.ts`, its snapshot saved in the same commit as the fill or lock change
 * that moved it.
 *
 * @example
 *   let s = engineOrderSteps.start(input);                       // NEW
 *   s = engineOrderSteps.send(s, { type: 'FILL', fill, release: '0' });
 *   statusOf(s);                                                  // 'PARTIALLY_FILLED' or 'FILLED'
 */
import { assign, setup, type SnapshotFrom } from 'xstate';

import { dec } from './exchange/money.ts';
import { stepper } from './stepper.ts';
import type { BookSymbol } from '../kernel/domain.ts';

/** Order types of the engine (docs/orders.md#order-types). */
export type EngineOrderType = 'LIMIT' | 'LIMIT_MAKER' | 'MARKET';
/** How long a LIMIT order stays (docs/orders.md#order-types). */
export type TimeInForce = 'GTC' | 'IOC' | 'FOK';
/** Order statuses, as Binance names them; REJECTED is never stored (a refused order leaves no record). */
export type EngineOrderStatus = 'NEW' | 'PARTIALLY_FILLED' | 'FILLED' | 'CANCELED' | 'REJECTED' | 'EXPIRED';

/** One fill, as the order records it (decimal strings). */
export interface OrderFill {
  tradeId: string;
  price: string;
  qty: string;
  /** price x qty, rounded to 10 digits */
  quoteQty: string;
  commission: string;
  liquidity: 'MAKER' | 'TAKER';
  /** `ts` of the book that showed this price and quantity */
  bookTs: number;
  time: number;
}

/** What an order is created with: its request, its fee rates and its lock (decided by the engine). */
export interface EngineOrderInput {
  orderId: string;
  /** the order's integer id in its account, 1, 2, ... in placing order (docs/orders.md#ids); absent in orders placed before those ids */
  number?: number;
  accountId: string;
  clientOrderId: string;
  symbol: BookSymbol;
  side: 'BUY' | 'SELL';
  type: EngineOrderType;
  timeInForce: TimeInForce | null;
  /** limit price (null for MARKET) */
  price: string | null;
  origQty: string;
  /** MARKET by quote amount: the USDT asked for (null otherwise) */
  quoteOrderQty: string | null;
  makerRate: string;
  takerRate: string;
  /** what the order holds while open: USDT (BUY) or the symbol (SELL); null when it never rests */
  lockAsset: 'USDT' | BookSymbol | null;
  /** the amount held (docs/orders.md#locking) */
  locked: string;
  /** the quantity left to rest after the order took what it could at placement */
  restingQty: string;
  createdAt: number;
}

/** The order's record: its input plus what happened to it. */
export interface EngineOrderContext extends EngineOrderInput {
  executedQty: string;
  /** sum of the fills' quoteQty */
  cumQuote: string;
  commission: string;
  /** quantity filled while resting (maker fills: docs/orders.md#resting-fills) */
  restFilledQty: string;
  fills: number;
  lastFill: OrderFill | null;
  updatedAt: number;
}

/** What the engine reports to an order. */
export type EngineOrderEvent =
  /** a fill; `release` is how much of the lock it frees */
  | { type: 'FILL'; fill: OrderFill; release: string }
  /** the owner canceled it: the whole lock is freed */
  | { type: 'CANCEL'; time: number }
  /** IOC, FOK or MARKET: what did not fill at placement will not */
  | { type: 'EXPIRE'; time: number };

const add = (a: string, b: string): string => dec(a).plus(b).toFixed();

const fitsOrder = ({ context, event }: { context: EngineOrderContext; event: EngineOrderEvent }) =>
  event.type === 'FILL' && dec(event.fill.qty).gt(0) && dec(context.executedQty).plus(event.fill.qty).lte(context.origQty);
const completesOrder = ({ context, event }: { context: EngineOrderContext; event: EngineOrderEvent }) =>
  event.type === 'FILL' && dec(context.executedQty).plus(event.fill.qty).eq(context.origQty);

/** The transitions of an open order (new or partially filled): a fill that completes it or fits it, a cancel, an expiry. */
const OPEN_TRANSITIONS = {
  FILL: [
    { guard: 'completesOrder', target: 'filled', actions: 'recordFill' },
    { guard: 'fitsOrder', target: 'partiallyFilled', actions: 'recordFill' },
  ],
  CANCEL: { target: 'canceled', actions: 'releaseAll' },
  EXPIRE: { target: 'expired', actions: 'releaseAll' },
} as const;

/** The engine order machine. */
export const engineOrderMachine = setup({
  types: { context: {} as EngineOrderContext, input: {} as EngineOrderInput, events: {} as EngineOrderEvent },
  actions: {
    recordFill: assign(({ context, event }) => {
      if (event.type !== 'FILL') return {};
      const { fill, release } = event;
      return {
        executedQty: add(context.executedQty, fill.qty),
        cumQuote: add(context.cumQuote, fill.quoteQty),
        commission: add(context.commission, fill.commission),
        restFilledQty: fill.liquidity === 'MAKER' ? add(context.restFilledQty, fill.qty) : context.restFilledQty,
        locked: dec(context.locked).minus(release).toFixed(),
        fills: context.fills + 1,
        lastFill: fill,
        updatedAt: fill.time,
      };
    }),
    releaseAll: assign(({ event }) => ({ locked: '0', updatedAt: event.type === 'FILL' ? event.fill.time : event.time })),
  },
  guards: { fitsOrder, completesOrder },
}).createMachine({
  id: 'engineOrder',
  initial: 'new',
  context: ({ input }) => ({
    ...input,
    executedQty: '0',
    cumQuote: '0',
    commission: '0',
    restFilledQty: '0',
    fills: 0,
    lastFill: null,
    updatedAt: input.createdAt,
  }),
  states: {
    // an order with a fill behind it answers the same events as a new one
    new: { on: OPEN_TRANSITIONS },
    partiallyFilled: { on: OPEN_TRANSITIONS },
    filled: { type: 'final' },
    canceled: { type: 'final' },
    expired: { type: 'final' },
  },
});

/** A snapshot of an engine order. */
export type EngineOrderSnapshot = SnapshotFrom<typeof engineOrderMachine>;

/** Engine orders stepped without an actor (`stepper.ts`). */
export const engineOrderSteps = stepper(engineOrderMachine);

const STATUS: Record<string, EngineOrderStatus> = {
  new: 'NEW',
  partiallyFilled: 'PARTIALLY_FILLED',
  filled: 'FILLED',
  canceled: 'CANCELED',
  expired: 'EXPIRED',
};

/** The Binance-style status of a snapshot. */
export const statusOf = (s: EngineOrderSnapshot): EngineOrderStatus => STATUS[String(s.value)] ?? 'REJECTED';

/** Whether the order still rests (NEW or PARTIALLY_FILLED). */
export const isOpen = (s: EngineOrderSnapshot): boolean => s.status === 'active';

/** A stored snapshot back as a snapshot of the machine (the store's JSON is the persisted form). */
export const restoreEngineOrder = (persisted: unknown): EngineOrderSnapshot => engineOrderMachine.resolveState(persisted as EngineOrderSnapshot);
