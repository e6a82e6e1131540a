/**
 * What the exchange tells the outside world on NATS (docs/exchange-api.md#ledger-events-on-nats):
 * every journal entry and every fill of a committed ledger change, on
 * `exchange.<accountId>.journal` and `exchange.<accountId>.fill`; the order engine's order and
 * balance updates on `exchange.<accountId>.order` and `.balance`. Published after the commit
 * (the ledger is the truth; a subscriber that missed a message reads the journal over REST).
 * Declared once, as valibot schemas, for the publisher, tests and subscribers.
 *
 * @example
 *   for (const e of ledgerEvents(accountId, change)) nc.publish(exchangeSubject(e), JSON.stringify(e));
 */
import * as v from 'valibot';

import type { LedgerCommit, OrderRecord } from '../../adapters/store/exchange/port.ts';
import { journalFields, JournalEntrySchema, type JournalEntry } from '../../machines/exchange/journal.ts';
import { BOOK_SYMBOLS } from '../../kernel/domain.ts';

/** A decimal number as text, as money and quantities are written on the wire. */
export const decimal = v.pipe(v.string(), v.regex(/^-?\d+(\.\d+)?$/));

/** `exchange.<accountId>.journal`: one journal entry as stored. */
export const JournalEventSchema = v.strictObject({ kind: v.literal('journal'), accountId: v.string(), entry: JournalEntrySchema });
/** `exchange.<accountId>.fill`: one book level an order took. */
export const FillEventSchema = v.strictObject({
  kind: v.literal('fill'),
  accountId: v.string(),
  orderId: v.string(),
  symbol: v.picklist(BOOK_SYMBOLS),
  side: v.picklist(['BUY', 'SELL']),
  price: decimal,
  qty: decimal,
  gross: decimal,
  ts: v.string(),
});
/** The fill an order event reports (`lastFill`), with the book time that justified it (docs/orders.md#events). */
export const OrderFillSchema = v.strictObject({
  tradeId: v.string(),
  price: decimal,
  qty: decimal,
  quoteQty: decimal,
  commission: decimal,
  commissionAsset: v.literal('USDT'),
  liquidity: v.picklist(['MAKER', 'TAKER']),
  bookTs: v.number(),
  time: v.number(),
});
/**
 * `exchange.<accountId>.order`: an engine order was placed, filled, canceled or expired
 * (docs/orders.md#events): what a Binance `executionReport` carries.
 */
export const OrderEventSchema = v.strictObject({
  kind: v.literal('order'),
  accountId: v.string(),
  /** NEW (placed), TRADE (a fill), CANCELED, EXPIRED */
  execution: v.picklist(['NEW', 'TRADE', 'CANCELED', 'EXPIRED']),
  orderId: v.string(),
  clientOrderId: v.string(),
  symbol: v.picklist(BOOK_SYMBOLS),
  side: v.picklist(['BUY', 'SELL']),
  type: v.picklist(['LIMIT', 'LIMIT_MAKER', 'MARKET']),
  timeInForce: v.nullable(v.picklist(['GTC', 'IOC', 'FOK'])),
  status: v.picklist(['NEW', 'PARTIALLY_FILLED', 'FILLED', 'CANCELED', 'EXPIRED']),
  price: v.nullable(decimal),
  origQty: decimal,
  quoteOrderQty: v.nullable(decimal),
  executedQty: decimal,
  cumulativeQuoteQty: decimal,
  /** commission of every fill so far, in USDT */
  commission: decimal,
  lastFill: v.nullable(OrderFillSchema),
  createdAt: v.number(),
  /** unix ms of this event */
  time: v.number(),
});
/** `exchange.<accountId>.balance`: free and locked balances after a change made by the engine (a Binance `outboundAccountPosition`). */
export const BalanceEventSchema = v.strictObject({
  kind: v.literal('balance'),
  accountId: v.string(),
  time: v.number(),
  balances: v.array(v.strictObject({ asset: v.picklist(['USDT', 'BTC', 'ETH', 'SOL']), free: decimal, locked: decimal })),
});
export const ExchangeEventSchema = v.variant('kind', [JournalEventSchema, FillEventSchema, OrderEventSchema, BalanceEventSchema]);
export type ExchangeEvent = v.InferOutput<typeof ExchangeEventSchema>;

/** The subject of an event: `exchange.<accountId>.<kind>`. */
export const exchangeSubject = (e: ExchangeEvent): string => `exchange.${e.accountId}.${e.kind}`;

/** The journal events of entries written for `accountId`. */
export function journalEvents(accountId: string, entries: readonly JournalEntry[]): ExchangeEvent[] {
  return entries.map((entry) => ({ kind: 'journal', accountId, entry: journalFields(entry) as JournalEntry }));
}

/** The fill events of one order record: each book level it took, in order. */
export function fillEvents(accountId: string, order: OrderRecord): ExchangeEvent[] {
  return order.fills.map((f) => ({
    kind: 'fill',
    accountId,
    orderId: order.orderId,
    symbol: order.symbol,
    side: order.side,
    price: f.price,
    qty: f.qty,
    gross: f.gross,
    ts: order.createdAt,
  }));
}

/** Every event of one committed ledger change: its fills, then its journal entries. */
export function ledgerEvents(accountId: string, change: LedgerCommit): ExchangeEvent[] {
  return [...(change.order ? fillEvents(accountId, change.order) : []), ...journalEvents(accountId, change.journal)];
}
