/**
 * The exchange ledger store: one port, three adapters (Redis; a journal file in DATA_DIR as the
 * embedded default; in-memory for unit tests). Every change of an account is one `commit` guarded by the account's version, so
 * cash, positions, order, fills, journal entries, equity point and idempotency record are
 * written all together or not at all, whatever races (docs/exchange-api.md#orders). An order costs
 * two round trips: `load` (account, positions, idempotency record) and `commit` (which also saves
 * the order's final state). Orders of the engine (docs/orders.md) are saved by the same commit as the
 * fills, locks and journal entries that move them.
 */

import type { Balances } from '../../../machines/exchange/ledger.ts';
import type { JournalEntry } from '../../../machines/exchange/journal.ts';
import type { Decimal } from '../../../machines/exchange/money.ts';
import type { BookSymbol } from '../../../kernel/domain.ts';

/** The fixed facts of an account (docs/exchange-api.md#open). */
export interface AccountRecord {
  id: string;
  name: string;
  baseCurrency: 'USDT';
  initialCash: Decimal;
  /** the fee rate of market orders and of every fill that takes liquidity (docs/orders.md#fees) */
  feeRate: Decimal;
  /** the fee rate of fills of resting orders (docs/orders.md#fees); absent: `feeRate` */
  makerFeeRate?: Decimal;
  createdAt: string;
}

/**
 * How many engine orders and fills an account holds: the integer ids (docs/orders.md#ids) last
 * given, so the next order is `order + 1` and the next fill `trade + 1`. Exact at the bundle's
 * version, which every write of an order or a fill bumps.
 */
export interface LastIds {
  order: number;
  trade: number;
}

/** An account as loaded: its facts, balances, the last integer ids given, and the version a commit must match. */
export interface AccountBundle {
  account: AccountRecord;
  balances: Balances;
  lastIds: LastIds;
  version: number;
}

/** One book level taken by an order, as stored and sent (decimal strings). */
export interface FillRecord {
  price: string;
  qty: string;
  gross: string;
}

/** An executed order with its fills (docs/exchange-api.md#history), decimal strings throughout. */
export interface OrderRecord {
  orderId: string;
  accountId: string;
  status: 'FILLED' | 'PARTIALLY_FILLED';
  symbol: BookSymbol;
  side: 'BUY' | 'SELL';
  requestedQty: string;
  qty: string;
  price: string;
  gross: string;
  fee: string;
  cash: string;
  positionQty: string;
  idempotencyKey: string | null;
  createdAt: string;
  fills: FillRecord[];
}

/** One point of the equity curve (docs/exchange-api.md#equity-curve). */
export interface EquityPoint {
  ts: string;
  cash: string;
  positionsValue: string;
  equity: string;
  realizedPnl: string;
  unrealizedPnl: string;
}

/** What an `Idempotency-Key` answered the first time: the body fingerprint and the reply. */
export interface IdempotencyRecord {
  fingerprint: string;
  status: number;
  body: Record<string, string>;
}

/**
 * An order of the engine as one commit leaves it (docs/orders.md): its machine snapshot (the order's
 * record is the snapshot's context) and what indexes it. A client order id names one order of the
 * account for good: a commit that would give it to another order is a conflict.
 */
export interface EngineOrderWrite {
  orderId: string;
  clientOrderId: string;
  symbol: BookSymbol;
  /** NEW or PARTIALLY_FILLED: listed among the open orders (and reloaded at boot) */
  open: boolean;
  /** the order machine's persisted snapshot */
  state: unknown;
}

/** One fill of an engine order (docs/orders.md#resting-fills), decimal strings, with the book that justified it. */
export interface TradeRecord {
  tradeId: string;
  orderId: string;
  /** the fill's integer id, its place among the account's fills (docs/orders.md#ids); absent in fills written before those ids */
  number?: number;
  /** the order's integer id (docs/orders.md#ids); absent in fills written before those ids */
  orderNumber?: number;
  clientOrderId: string;
  symbol: BookSymbol;
  side: 'BUY' | 'SELL';
  price: string;
  qty: string;
  /** price x qty, rounded (what the fill moved in USDT before the fee) */
  quoteQty: string;
  commission: string;
  commissionAsset: 'USDT';
  liquidity: 'MAKER' | 'TAKER';
  /** `ts` of the book snapshot that showed this price and quantity */
  bookTs: number;
  /** unix ms of the fill */
  time: number;
}

/** An open engine order as stored, with its account (what a restart reloads). */
export interface OpenEngineOrder {
  accountId: string;
  state: unknown;
}

/** How a read names one engine order: by the exchange's id, by the client's, or by its integer id (its place among the account's orders, from 1: docs/orders.md#ids). */
export type EngineOrderRef = { orderId: string } | { clientOrderId: string } | { number: number };

/** Everything one ledger change writes. `balances` is the whole new state of the account. */
export interface LedgerCommit {
  balances: Balances;
  journal: JournalEntry[];
  order?: OrderRecord;
  idempotency?: { key: string; record: IdempotencyRecord };
  equityPoint?: EquityPoint;
  /** the order's final machine snapshot, saved in the same commit as the trade it describes (no separate write) */
  orderState?: { orderId: string; state: unknown };
  /** engine orders this change creates or moves on, each with its snapshot after the change */
  engineOrders?: EngineOrderWrite[];
  /** fills of engine orders made by this change, oldest first */
  trades?: TradeRecord[];
}

/** `conflict`: another writer committed first (reload and retry); `missing`: the account is gone. */
export type CommitOutcome = 'committed' | 'conflict' | 'missing';

/** An account loaded together with what an idempotency key already answered (if asked). */
export interface LoadedAccount {
  bundle: AccountBundle;
  idempotency: IdempotencyRecord | null;
}

/** Where an account's event relay stands: the last journal entry relayed (its id) and how many order records' fills went out. */
export interface RelayCursor {
  journal: string;
  orders: number;
}

/** What an account committed after its relay cursor: journal entries with their ids, oldest first, and the order records that may follow. */
export interface OutboxPage {
  from: RelayCursor;
  journal: { id: string; entry: JournalEntry }[];
  /** the next order records after `from.orders`, oldest first (each one belongs to a TRADE entry of `journal` with its order id) */
  orders: OrderRecord[];
}

/**
 * The ledger read as the outbox of the exchange's events (docs/operations.md#exchange-events-outbox):
 * the journal and the order records are what the commits wrote; the relay cursor is all the outbox adds.
 */
export interface LedgerOutbox {
  /** At most `limit` journal entries after the account's cursor; null when the account does not exist. */
  read(accountId: string, limit: number): Promise<OutboxPage | null>;
  /** Moves the account's cursor forward to `to` (never back). */
  advance(accountId: string, to: RelayCursor): Promise<void>;
}

/** The ledger store port; `redis.ts`, `memory.ts` and `file.ts` implement it. */
export interface ExchangeStore {
  /** where the ledger lives (metrics time Redis round trips); unset: not said */
  readonly kind?: 'redis' | 'file' | 'memory';
  /** the ledger as an outbox of its events, where the store keeps a relay cursor (Redis) */
  readonly outbox?: LedgerOutbox;
  /** Creates an account with its opening journal entry and first equity point; names are unique. */
  createAccount(account: AccountRecord, balances: Balances, opening: JournalEntry, point: EquityPoint): Promise<'created' | 'name_taken'>;
  /** A consistent read of one account (null when it does not exist). */
  load(id: string, idempotencyKey?: string): Promise<LoadedAccount | null>;
  /** Writes `change` only if the account still has `expectedVersion`; bumps the version. */
  commit(id: string, expectedVersion: number, change: LedgerCommit): Promise<CommitOutcome>;
  /** Ids of every account, oldest first. */
  listAccountIds(): Promise<string[]>;
  /** Newest first, at most `limit`. */
  orders(id: string, limit: number): Promise<OrderRecord[]>;
  /** Oldest first, points with ts >= sinceMs. */
  equity(id: string, sinceMs: number): Promise<EquityPoint[]>;
  /** The whole journal of one account, in order. */
  journal(id: string): Promise<JournalEntry[]>;
  /** The final state of an executed order, as its commit saved it (null when unknown). */
  readOrderState(accountId: string, orderId: string): Promise<unknown>;
  /** The snapshot of one engine order of the account (null when unknown). */
  engineOrder(accountId: string, ref: EngineOrderRef): Promise<unknown>;
  /** Snapshots of every engine order of the account, oldest first: the n-th has the integer id n (docs/orders.md#ids). */
  engineOrders(accountId: string): Promise<unknown[]>;
  /** Every open engine order of one account, or of every account (a restart reloads them), in no particular order. */
  openEngineOrders(accountId?: string): Promise<OpenEngineOrder[]>;
  /** Fills of the account's engine orders, oldest first: the n-th has the integer id n (docs/orders.md#ids). */
  trades(accountId: string): Promise<TradeRecord[]>;
  /**
   * Sets the account's taker and maker fee rates (docs/exchange-api.md#fees) and bumps its version,
   * so a change computed with the old rates conflicts and is computed again; false when it does not exist.
   */
  setFees(id: string, fees: { feeRate: Decimal; makerFeeRate: Decimal }): Promise<boolean>;
  /** Removes the account and everything it owns; false when it did not exist. */
  deleteAccount(id: string): Promise<boolean>;
  /** One round trip to the storage (health); rejects with DependencyUnavailable when it is unreachable. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
