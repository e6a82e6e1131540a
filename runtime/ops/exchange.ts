/**
 * `accounts`, `orders`, `order` and `journal --replay-check`: the exchange ledger as stored.
 * The replay check rebuilds an account's balances from its journal alone, with the ledger
 * functions the live path uses (`replayJournal`), and compares them with the stored balances.
 */

import type { OrderRecord } from '../../adapters/store/exchange/port.ts';
import type { JournalEntry } from '../../machines/exchange/journal.ts';
import { replayJournal } from '../../machines/exchange/journal.ts';
import { flatPosition, type Balances } from '../../machines/exchange/ledger.ts';
import { fmt } from '../../machines/exchange/money.ts';
import { OpsError } from './errors.ts';
import type { ExchangeReads } from './sources.ts';
import { BOOK_SYMBOLS } from '../../kernel/domain.ts';

/** One row of `accounts`. */
export interface AccountRow {
  id: string;
  name: string;
  cash: string;
  netDeposits: string;
  feesPaid: string;
  /** symbols with a non-zero position */
  positions: string[];
  version: number;
  createdAt: string;
}

/** One row of `orders`. */
export interface OrderRow {
  orderId: string;
  /** the order's final machine state as its commit saved it (`filled`, `partiallyFilled`), else the order status */
  state: string;
  status: string;
  symbol: string;
  side: string;
  qty: string;
  requestedQty: string;
  price: string;
  fee: string;
  createdAt: string;
}

/** One difference found by the replay check. */
export interface BalanceDifference {
  field: string;
  stored: string;
  replayed: string;
}

/** Result of `journal --replay-check`. */
export interface ReplayCheck {
  ok: boolean;
  accountId: string;
  entries: number;
  differences: BalanceDifference[];
}

async function loadOrFail(store: ExchangeReads, accountId: string) {
  const loaded = await store.load(accountId);
  if (!loaded) throw new OpsError(`no account ${accountId} in ${store.where}`);
  return loaded.bundle;
}

/** Every account, oldest first. */
export async function listAccounts(store: ExchangeReads): Promise<AccountRow[]> {
  const rows: AccountRow[] = [];
  for (const id of await store.listAccountIds()) {
    const loaded = await store.load(id);
    if (!loaded) continue; // deleted meanwhile
    const { account, balances, version } = loaded.bundle;
    rows.push({
      id,
      name: account.name,
      cash: fmt(balances.cash),
      netDeposits: fmt(balances.netDeposits),
      feesPaid: fmt(balances.feesPaid),
      positions: BOOK_SYMBOLS.filter((s) => balances.positions[s] && !balances.positions[s].qty.isZero()),
      version,
      createdAt: account.createdAt,
    });
  }
  return rows;
}

const stateOf = (saved: unknown, order: OrderRecord): string => {
  const value = (saved as { value?: unknown } | null)?.value;
  return typeof value === 'string' ? value : order.status;
};

/** Orders of an account, newest first. */
export async function listOrders(store: ExchangeReads, accountId: string, limit: number): Promise<OrderRow[]> {
  await loadOrFail(store, accountId);
  const orders = await store.orders(accountId, limit);
  return Promise.all(
    orders.map(async (o) => ({
      orderId: o.orderId,
      state: stateOf(await store.readOrderState(accountId, o.orderId), o),
      status: o.status,
      symbol: o.symbol,
      side: o.side,
      qty: o.qty,
      requestedQty: o.requestedQty,
      price: o.price,
      fee: o.fee,
      createdAt: o.createdAt,
    })),
  );
}

/** One order with its fills and its saved final machine snapshot. */
export async function readOrder(
  store: ExchangeReads,
  accountId: string,
  orderId: string,
): Promise<{ order: OrderRecord; state: string; actorSnapshot: unknown }> {
  await loadOrFail(store, accountId);
  const order = (await store.orders(accountId, Number.MAX_SAFE_INTEGER)).find((o) => o.orderId === orderId);
  if (!order) throw new OpsError(`no order ${orderId} in account ${accountId}`);
  const saved = await store.readOrderState(accountId, orderId);
  return { order, state: stateOf(saved, order), actorSnapshot: saved ?? null };
}

/** The account's journal, in order. */
export async function readJournal(store: ExchangeReads, accountId: string): Promise<JournalEntry[]> {
  await loadOrFail(store, accountId);
  return store.journal(accountId);
}

/** Field-by-field differences between stored and replayed balances (money with 10 digits). */
export function balanceDifferences(stored: Balances, replayed: Balances): BalanceDifference[] {
  const out: BalanceDifference[] = [];
  const compare = (field: string, a: Parameters<typeof fmt>[0], b: Parameters<typeof fmt>[0]) => {
    if (!a.eq(b)) out.push({ field, stored: fmt(a), replayed: fmt(b) });
  };
  compare('cash', stored.cash, replayed.cash);
  compare('cashLocked', stored.cashLocked, replayed.cashLocked);
  compare('netDeposits', stored.netDeposits, replayed.netDeposits);
  compare('feesPaid', stored.feesPaid, replayed.feesPaid);
  for (const symbol of BOOK_SYMBOLS) {
    const s = stored.positions[symbol] ?? flatPosition(symbol);
    const r = replayed.positions[symbol] ?? flatPosition(symbol);
    compare(`positions.${symbol}.qty`, s.qty, r.qty);
    compare(`positions.${symbol}.costBasis`, s.costBasis, r.costBasis);
    compare(`positions.${symbol}.realizedPnl`, s.realizedPnl, r.realizedPnl);
    compare(`positions.${symbol}.locked`, s.locked, r.locked);
  }
  return out;
}

/** Replays the account's journal and compares the result with its stored balances. */
export async function replayCheck(store: ExchangeReads, accountId: string): Promise<ReplayCheck> {
  const bundle = await loadOrFail(store, accountId);
  const entries = await store.journal(accountId);
  let replayed: Balances;
  try {
    replayed = replayJournal(entries);
  } catch (err) {
    return {
      ok: false,
      accountId,
      entries: entries.length,
      differences: [{ field: 'journal', stored: `${entries.length} entries`, replayed: err instanceof Error ? err.message : String(err) }],
    };
  }
  const differences = balanceDifferences(bundle.balances, replayed);
  return { ok: differences.length === 0, accountId, entries: entries.length, differences };
}
