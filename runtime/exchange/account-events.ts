/**
 * The events of one account as the native account stream sends them
 * (docs/exchange-api.md#account-stream): the order engine's `order` and `balance` events, the fills
 * of native market orders and the cash movements (deposits, withdrawals, cash set), each with a
 * per-account `seq`. Declared once, as valibot schemas, for the stream, the Binance user data
 * stream that translates them, and the tests.
 *
 * @example
 *   v.parse(AccountEventSchema, JSON.parse(frame)); // { type: 'order', seq: 3, execution: 'TRADE', ... }
 */
import * as v from 'valibot';
import type { LedgerCommit } from '../../adapters/store/exchange/port.ts';
import type { ExchangeEvent } from './events.ts';
import { BalanceEventSchema, FillEventSchema, OrderEventSchema, decimal } from './events.ts';
import { balanceViews } from './engine/views.ts';
import type { EventIds } from './engine/types.ts';
import { dec, fmt } from '../../machines/exchange/money.ts';

/** Money as the native API writes it: 10 fraction digits. */
const money = (s: string): string => fmt(dec(s));

const { kind: _orderKind, type: orderType, ...orderFields } = OrderEventSchema.entries;
const { kind: _balanceKind, ...balanceFields } = BalanceEventSchema.entries;
const { kind: _fillKind, ts: _fillTs, ...fillFields } = FillEventSchema.entries;

/** An engine order was placed, filled, canceled or expired (docs/orders.md#events); the order's type is `orderType` (`type` names the event). */
export const AccountOrderEventSchema = v.strictObject({ type: v.literal('order'), orderType, ...orderFields });
/**
 * An order event as the stream carries it inside the exchange: with the integer ids it is about
 * (docs/orders.md#ids; `trade` -1 unless a fill), for the Binance user data stream. The native
 * stream sends it without them (`nativeAccountEvent`); events logged before those ids have none.
 */
export const AccountOrderEventBodySchema = v.strictObject({
  ...AccountOrderEventSchema.entries,
  ids: v.optional(v.strictObject({ order: v.number(), trade: v.number(), cancel: v.optional(v.string()) })),
});
/** Free and locked balances after a change. */
export const AccountBalanceEventSchema = v.strictObject({ type: v.literal('balance'), ...balanceFields });
/** One book level a native market order took (docs/exchange-api.md#place). */
export const AccountFillEventSchema = v.strictObject({ type: v.literal('fill'), ...fillFields, time: v.number() });
/** A deposit, withdrawal or cash adjustment (docs/exchange-api.md#deposits-and-withdrawals): `amount` is the signed change of USDT. */
export const AccountCashEventSchema = v.strictObject({
  type: v.literal('cash'),
  accountId: v.string(),
  entry: v.picklist(['DEPOSIT', 'WITHDRAWAL', 'CASH_SET']),
  asset: v.literal('USDT'),
  amount: decimal,
  reason: v.nullable(v.string()),
  time: v.number(),
});
/** Any event of the account stream, before it has its seq. */
export const AccountEventBodySchema = v.variant('type', [
  AccountOrderEventBodySchema,
  AccountBalanceEventSchema,
  AccountFillEventSchema,
  AccountCashEventSchema,
]);
/** Any event of the native account stream as sent: with its per-account `seq`. */
export const AccountEventSchema = v.variant(
  'type',
  [AccountOrderEventSchema, AccountBalanceEventSchema, AccountFillEventSchema, AccountCashEventSchema].map((s) =>
    v.strictObject({ ...s.entries, seq: v.number() }),
  ) as unknown as [typeof AccountOrderEventSchema, typeof AccountBalanceEventSchema, typeof AccountFillEventSchema, typeof AccountCashEventSchema],
);
/** An event before it is logged. */
export type AccountEventBody = v.InferOutput<typeof AccountEventBodySchema>;
/** An event as sent. */
export type AccountEvent = AccountEventBody & { seq: number };

/** The first message of every connection: where the account's log stands (docs/exchange-api.md#account-stream). */
export interface AccountResumeMessage {
  type: 'resume';
  accountId: string;
  recovered: boolean;
  epoch: string;
  seq: number;
}

/** An event as the native stream sends it: an order event without its integer ids. */
export function nativeAccountEvent(e: AccountEvent): AccountEvent {
  if (e.type !== 'order' || e.ids === undefined) return e;
  const { ids: _ids, ...rest } = e;
  return rest;
}

/** The account event of an engine event (order, with its integer ids; balance); null for the ledger's own kinds. */
export function accountEventOfEngine(e: ExchangeEvent, ids: EventIds | null = null): AccountEventBody | null {
  if (e.kind === 'order') {
    const { kind: _k, type: orderType, ...rest } = e;
    return { type: 'order', orderType, ...rest, ...(ids ? { ids } : {}) };
  }
  if (e.kind === 'balance') {
    const { kind: _k, ...rest } = e;
    return { type: 'balance', ...rest };
  }
  return null;
}

/**
 * The account events of a committed change made outside the order engine: a native market order's
 * fills, cash movements, then the balances. Engine commits are announced by the engine itself.
 */
export function accountEventsOfCommit(accountId: string, change: LedgerCommit, time: number): AccountEventBody[] {
  if (change.engineOrders && change.engineOrders.length > 0) return [];
  const out: AccountEventBody[] = [];
  const order = change.order;
  if (order)
    for (const f of order.fills)
      out.push({
        type: 'fill',
        accountId,
        orderId: order.orderId,
        symbol: order.symbol,
        side: order.side,
        price: money(f.price),
        qty: money(f.qty),
        gross: money(f.gross),
        time,
      });
  for (const j of change.journal)
    if (j.type === 'DEPOSIT' || j.type === 'WITHDRAWAL' || j.type === 'CASH_SET')
      out.push({ type: 'cash', accountId, entry: j.type, asset: 'USDT', amount: money(j.amount), reason: j.reason ?? null, time });
  if (out.length > 0) out.push({ type: 'balance', accountId, time, balances: balanceViews(change.balances) });
  return out;
}
