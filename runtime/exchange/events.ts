/**
 * What the exchange tells the outside world on NATS (docs/exchange-api.md#ledger-events-on-nats):
 * every journal entry and every fill of a committed ledger change, on
 * `exchange.<accountId>.journal` and `exchange.<accountId>.fill`. Published after the commit
 * (the ledger is the truth; a subscriber that missed a message reads the journal over REST).
 * Declared once, as valibot schemas, for the publisher, tests and subscribers.
 *
 * @example
 *   for (const e of ledgerEvents(accountId, change)) nc.publish(exchangeSubject(e), JSON.stringify(e));
 */
import * as v from 'valibot';

import type { LedgerCommit } from '../../adapters/store/exchange/port.ts';
import { journalFields, JournalEntrySchema, type JournalEntry } from '../../machines/exchange/journal.ts';
import { BOOK_SYMBOLS } from '../../kernel/domain.ts';

const decimal = v.pipe(v.string(), v.regex(/^-?\d+(\.\d+)?$/));

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
export const ExchangeEventSchema = v.variant('kind', [JournalEventSchema, FillEventSchema]);
export type ExchangeEvent = v.InferOutput<typeof ExchangeEventSchema>;

/** The subject of an event: `exchange.<accountId>.<kind>`. */
export const exchangeSubject = (e: ExchangeEvent): string => `exchange.${e.accountId}.${e.kind}`;

/** The journal events of entries written for `accountId`. */
export function journalEvents(accountId: string, entries: readonly JournalEntry[]): ExchangeEvent[] {
  return entries.map((entry) => ({ kind: 'journal', accountId, entry: journalFields(entry) as JournalEntry }));
}

/** Every event of one committed ledger change: its fills, then its journal entries. */
export function ledgerEvents(accountId: string, change: LedgerCommit): ExchangeEvent[] {
  const order = change.order;
  const fills: ExchangeEvent[] = order
    ? order.fills.map((f) => ({
        kind: 'fill',
        accountId,
        orderId: order.orderId,
        symbol: order.symbol,
        side: order.side,
        price: f.price,
        qty: f.qty,
        gross: f.gross,
        ts: order.createdAt,
      }))
    : [];
  return [...fills, ...journalEvents(accountId, change.journal)];
}
