/**
 * The append-only journal: one entry per change of cash or position, from which every
 * account's balances can be rebuilt by replay (no balance is ever set without a journal entry:
 * docs/exchange-api.md#conventions). Entries are flat string maps so they fit a Redis stream as they are.
 */
import * as v from 'valibot';

import { applyCashMovement, applyLock, applyTrade, openingBalances, type Balances } from './ledger.ts';
import { dec } from './money.ts';
import { BOOK_SYMBOLS } from '../../kernel/domain.ts';

const amount = v.pipe(v.string(), v.regex(/^-?\d+(\.\d+)?$/));
const reason = v.optional(v.string());

/** Schema of one journal entry as stored (every value a string). */
export const JournalEntrySchema = v.variant('type', [
  v.object({ type: v.literal('OPEN'), ts: v.string(), amount }),
  v.object({ type: v.picklist(['DEPOSIT', 'WITHDRAWAL', 'CASH_SET']), ts: v.string(), amount, reason }),
  v.object({
    type: v.literal('TRADE'),
    ts: v.string(),
    orderId: v.string(),
    symbol: v.picklist(BOOK_SYMBOLS),
    side: v.picklist(['BUY', 'SELL']),
    qty: amount,
    gross: amount,
    fee: amount,
  }),
  // an open order's reservation (docs/orders.md#locking): `amount` of `asset` locked, or released
  v.object({ type: v.picklist(['LOCK', 'UNLOCK']), ts: v.string(), orderId: v.string(), asset: v.picklist(['USDT', ...BOOK_SYMBOLS]), amount }),
]);

/** One journal entry. `amount` of DEPOSIT/WITHDRAWAL/CASH_SET is the signed cash delta; of LOCK/UNLOCK the (positive) amount held or released. */
export type JournalEntry = v.InferOutput<typeof JournalEntrySchema>;

/** Validates an entry read back from storage; throws on a corrupt record. */
export const parseJournalEntry = (fields: Record<string, string>): JournalEntry => v.parse(JournalEntrySchema, fields);

/** Flattens an entry into stream fields (drops absent optional values). */
export function journalFields(e: JournalEntry): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(e)) if (typeof val === 'string') out[k] = val;
  return out;
}

/** An entry as a Redis stream's field list `[field, value, ...]` (`journalFields` flattened, in one pass). */
export function journalFieldList(e: JournalEntry): string[] {
  const out: string[] = [];
  for (const k in e) {
    const val = (e as Record<string, unknown>)[k];
    if (typeof val === 'string') out.push(k, val);
  }
  return out;
}

/** Rebuilds balances from the journal alone, with the same ledger functions the live path uses. */
export function replayJournal(entries: readonly JournalEntry[]): Balances {
  let b: Balances | undefined;
  for (const e of entries) {
    if (e.type === 'OPEN') {
      b = openingBalances(dec(e.amount));
      continue;
    }
    if (!b) throw new Error('journal does not start with OPEN');
    b = applyEntry(b, e);
  }
  if (!b) throw new Error('empty journal');
  return b;
}

/** One entry applied to the balances before it (an OPEN is not: it starts the balances). */
function applyEntry(b: Balances, e: Exclude<JournalEntry, { type: 'OPEN' }>): Balances {
  switch (e.type) {
    case 'TRADE':
      return applyTrade(b, { symbol: e.symbol, side: e.side, qty: dec(e.qty), gross: dec(e.gross), fee: dec(e.fee) });
    case 'LOCK':
      return applyLock(b, e.asset, dec(e.amount));
    case 'UNLOCK':
      return applyLock(b, e.asset, dec(e.amount).neg());
    default:
      return applyCashMovement(b, dec(e.amount));
  }
}
