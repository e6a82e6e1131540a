/**
 * In-memory exchange ledger: the state behind the embedded file store (`file.ts`) and
 * unit tests. Same port and same guarantees within one process: every change is synchronous
 * (`*Now`), so a version check is enough and a journal line written right after it is in the
 * same order as the changes. On its own nothing survives a restart. `exportAccounts` and
 * `importAccount` move whole accounts as plain JSON (the file store's compaction).
 *
 * @example
 *   const store = createMemoryExchangeStore();            // the ExchangeStore port
 *   const ledger = new MemoryLedger();              // synchronous core, for a store that journals
 *   ledger.commitNow(id, version, change);          // 'committed' | 'conflict' | 'missing'
 */
import type { Balances } from '../../../machines/exchange/ledger.ts';
import type { Decimal } from '../../../machines/exchange/money.ts';
import type { JournalEntry } from '../../../machines/exchange/journal.ts';
import { accountFromJson, accountToJson, balancesFromJson, balancesToJson, type AccountJson, type BalancesJson } from './codec.ts';
import type {
  AccountRecord,
  CommitOutcome,
  EngineOrderRef,
  EquityPoint,
  ExchangeStore,
  IdempotencyRecord,
  LedgerCommit,
  LoadedAccount,
  OpenEngineOrder,
  OrderRecord,
  OutboxPage,
  TradeRecord,
} from './port.ts';

interface Held {
  account: AccountRecord;
  balances: Balances;
  version: number;
  journal: JournalEntry[];
  orders: OrderRecord[];
  equity: EquityPoint[];
  idempotency: Map<string, IdempotencyRecord>;
  orderStates: Map<string, string>;
  /** engine orders: id -> snapshot JSON, in creation order */
  engineOrders: Map<string, string>;
  /** the keys of `engineOrders` in their order: the id of the order with integer id n is at n - 1 (docs/orders.md#ids) */
  orderIds: string[];
  clientIds: Map<string, string>;
  open: Set<string>;
  trades: TradeRecord[];
  /** how many journal entries and order records the events relay has published; undefined: an account from before the relay */
  relayed: Lengths | undefined;
}

/** Counts of an account's journal entries and order records (the relay cursor of a ledger held in memory). */
export interface Lengths {
  journal: number;
  orders: number;
}

/** One whole account as plain JSON. */
export interface HeldAccountJson {
  account: AccountJson;
  balances: BalancesJson;
  version: number;
  journal: JournalEntry[];
  orders: OrderRecord[];
  equity: EquityPoint[];
  idempotency: [string, IdempotencyRecord][];
  orderStates: [string, string][];
  // absent in files written before the engine
  engineOrders?: [string, string][];
  clientIds?: [string, string][];
  open?: string[];
  trades?: TradeRecord[];
  // absent in files written before the events relay
  relayed?: Lengths;
}

const copyBalances = (b: Balances): Balances => ({ ...b, positions: { ...b.positions } });
const clone = <T>(x: T): T => structuredClone(x);

/** The accounts of one process, changed synchronously. */
export class MemoryLedger {
  private readonly accounts = new Map<string, Held>();
  private readonly names = new Map<string, string>();

  /** `relayFromStart`: the account's events are relayed from its opening entry (else: from where the relay first finds it) */
  createNow(account: AccountRecord, balances: Balances, opening: JournalEntry, point: EquityPoint, relayFromStart = true): 'created' | 'name_taken' {
    if (this.names.has(account.name)) return 'name_taken';
    this.names.set(account.name, account.id);
    this.accounts.set(account.id, {
      account,
      balances: copyBalances(balances),
      version: 1,
      journal: [clone(opening)],
      orders: [],
      equity: [clone(point)],
      idempotency: new Map(),
      orderStates: new Map(),
      engineOrders: new Map(),
      orderIds: [],
      clientIds: new Map(),
      open: new Set(),
      trades: [],
      relayed: relayFromStart ? { journal: 0, orders: 0 } : undefined,
    });
    return 'created';
  }

  load(id: string, idempotencyKey?: string): LoadedAccount | null {
    const h = this.accounts.get(id);
    if (!h) return null;
    const idem = idempotencyKey === undefined ? undefined : h.idempotency.get(idempotencyKey);
    return {
      bundle: { account: h.account, balances: copyBalances(h.balances), lastIds: { order: h.orderIds.length, trade: h.trades.length }, version: h.version },
      idempotency: idem ? clone(idem) : null,
    };
  }

  commitNow(id: string, expectedVersion: number, change: LedgerCommit): CommitOutcome {
    const h = this.accounts.get(id);
    if (!h) return 'missing';
    if (h.version !== expectedVersion) return 'conflict';
    if (change.idempotency && h.idempotency.has(change.idempotency.key)) return 'conflict';
    for (const w of change.engineOrders ?? []) {
      const owner = h.clientIds.get(w.clientOrderId);
      if (owner !== undefined && owner !== w.orderId) return 'conflict';
    }
    h.balances = copyBalances(change.balances);
    h.journal.push(...clone(change.journal));
    if (change.order) h.orders.push(clone(change.order));
    if (change.equityPoint) h.equity.push(clone(change.equityPoint));
    if (change.idempotency) h.idempotency.set(change.idempotency.key, clone(change.idempotency.record));
    if (change.orderState) h.orderStates.set(change.orderState.orderId, JSON.stringify(change.orderState.state));
    for (const w of change.engineOrders ?? []) {
      if (!h.engineOrders.has(w.orderId)) h.orderIds.push(w.orderId);
      h.engineOrders.set(w.orderId, JSON.stringify(w.state));
      h.clientIds.set(w.clientOrderId, w.orderId);
      if (w.open) h.open.add(w.orderId);
      else h.open.delete(w.orderId);
    }
    if (change.trades) h.trades.push(...clone(change.trades));
    h.version += 1;
    return 'committed';
  }

  setFeesNow(id: string, fees: { feeRate: Decimal; makerFeeRate: Decimal }): boolean {
    const h = this.accounts.get(id);
    if (!h) return false;
    h.account = { ...h.account, feeRate: fees.feeRate, makerFeeRate: fees.makerFeeRate };
    h.version += 1;
    return true;
  }

  deleteNow(id: string): boolean {
    const h = this.accounts.get(id);
    if (!h) return false;
    this.accounts.delete(id);
    this.names.delete(h.account.name);
    return true;
  }

  /** How many journal entries and order records the account has now (null when it does not exist). */
  lengths(id: string): Lengths | null {
    const h = this.accounts.get(id);
    return h ? { journal: h.journal.length, orders: h.orders.length } : null;
  }

  /**
   * What the account committed after its relay cursor, at most `limit` journal entries and none
   * past `upTo` (what is durable); entry ids are journal positions (1-based). An account from
   * before the relay gets its cursor at its end first (`started`: the store records it).
   */
  outboxRead(id: string, limit: number, upTo: Lengths | null = null): { page: OutboxPage; started: Lengths | null } | null {
    const h = this.accounts.get(id);
    if (!h) return null;
    let started: Lengths | null = null;
    if (!h.relayed) h.relayed = started = { journal: h.journal.length, orders: h.orders.length };
    const from = h.relayed;
    const end = Math.min(h.journal.length, upTo?.journal ?? Infinity, from.journal + limit);
    const journal = h.journal.slice(from.journal, Math.max(from.journal, end)).map((entry, i) => ({ id: String(from.journal + i + 1), entry: clone(entry) }));
    const orders = clone(h.orders.slice(from.orders, Math.min(h.orders.length, upTo?.orders ?? Infinity, from.orders + limit)));
    return { page: { from: { journal: String(from.journal), orders: from.orders }, journal, orders }, started };
  }

  /** Moves the account's relay cursor forward to `to`; false when it did not move. */
  advanceNow(id: string, to: Lengths): boolean {
    const h = this.accounts.get(id);
    if (!h || (h.relayed && h.relayed.journal >= to.journal)) return false;
    h.relayed = { ...to };
    return true;
  }

  has(id: string): boolean {
    return this.accounts.has(id);
  }

  ids(): string[] {
    return [...this.accounts.keys()];
  }

  orders(id: string, limit: number): OrderRecord[] {
    const h = this.accounts.get(id);
    return h ? clone(h.orders.slice(-limit).reverse()) : [];
  }

  equity(id: string, sinceMs: number): EquityPoint[] {
    const h = this.accounts.get(id);
    return h ? clone(h.equity.filter((p) => Date.parse(p.ts) >= sinceMs)) : [];
  }

  journal(id: string): JournalEntry[] {
    return clone(this.accounts.get(id)?.journal ?? []);
  }

  readState(accountId: string, orderId: string): unknown {
    const s = this.accounts.get(accountId)?.orderStates.get(orderId);
    return s === undefined ? null : (JSON.parse(s) as unknown);
  }

  engineOrder(accountId: string, ref: EngineOrderRef): unknown {
    const h = this.accounts.get(accountId);
    const id = h && ('orderId' in ref ? ref.orderId : 'clientOrderId' in ref ? h.clientIds.get(ref.clientOrderId) : h.orderIds[ref.number - 1]);
    const s = id === undefined ? undefined : h?.engineOrders.get(id);
    return s === undefined ? null : (JSON.parse(s) as unknown);
  }

  engineOrders(accountId: string): unknown[] {
    return [...(this.accounts.get(accountId)?.engineOrders.values() ?? [])].map((s) => JSON.parse(s) as unknown);
  }

  openEngineOrders(only?: string): OpenEngineOrder[] {
    const out: OpenEngineOrder[] = [];
    for (const [accountId, h] of this.accounts) {
      if (only !== undefined && accountId !== only) continue;
      for (const id of h.open) out.push({ accountId, state: JSON.parse(h.engineOrders.get(id) ?? 'null') as unknown });
    }
    return out;
  }

  trades(accountId: string): TradeRecord[] {
    return clone(this.accounts.get(accountId)?.trades ?? []);
  }

  exportAccounts(): HeldAccountJson[] {
    return [...this.accounts.values()].map((h) => ({
      account: accountToJson(h.account),
      balances: balancesToJson(h.balances),
      version: h.version,
      journal: h.journal,
      orders: h.orders,
      equity: h.equity,
      idempotency: [...h.idempotency],
      orderStates: [...h.orderStates],
      engineOrders: [...h.engineOrders],
      clientIds: [...h.clientIds],
      open: [...h.open],
      trades: h.trades,
      ...(h.relayed ? { relayed: h.relayed } : {}),
    }));
  }

  importAccount(json: HeldAccountJson): void {
    const account = accountFromJson(json.account);
    this.names.set(account.name, account.id);
    this.accounts.set(account.id, {
      account,
      balances: balancesFromJson(json.balances),
      version: json.version,
      journal: clone(json.journal),
      orders: clone(json.orders),
      equity: clone(json.equity),
      idempotency: new Map(clone(json.idempotency)),
      orderStates: new Map(json.orderStates),
      engineOrders: new Map(json.engineOrders ?? []),
      orderIds: (json.engineOrders ?? []).map(([id]) => id),
      clientIds: new Map(json.clientIds ?? []),
      open: new Set(json.open ?? []),
      trades: clone(json.trades ?? []),
      relayed: json.relayed ? { ...json.relayed } : undefined,
    });
  }
}

/** The read side of the port over a ledger (shared by the memory and the file store). */
export function ledgerReads(
  ledger: MemoryLedger,
): Pick<
  ExchangeStore,
  'load' | 'listAccountIds' | 'orders' | 'equity' | 'journal' | 'readOrderState' | 'engineOrder' | 'engineOrders' | 'openEngineOrders' | 'trades'
> {
  return {
    load: async (id, idempotencyKey) => ledger.load(id, idempotencyKey),
    listAccountIds: async () => ledger.ids(),
    orders: async (id, limit) => ledger.orders(id, limit),
    equity: async (id, sinceMs) => ledger.equity(id, sinceMs),
    journal: async (id) => ledger.journal(id),
    readOrderState: async (accountId, orderId) => ledger.readState(accountId, orderId),
    engineOrder: async (accountId, ref) => ledger.engineOrder(accountId, ref),
    engineOrders: async (accountId) => ledger.engineOrders(accountId),
    openEngineOrders: async (accountId) => ledger.openEngineOrders(accountId),
    trades: async (accountId) => ledger.trades(accountId),
  };
}

/** Creates an empty in-memory store (lost when the process ends). */
export function createMemoryExchangeStore(): ExchangeStore {
  const ledger = new MemoryLedger();
  return {
    ...ledgerReads(ledger),
    createAccount: async (account, balances, opening, point) => ledger.createNow(account, balances, opening, point),
    commit: async (id, expectedVersion, change) => ledger.commitNow(id, expectedVersion, change),
    setFees: async (id, fees) => ledger.setFeesNow(id, fees),
    deleteAccount: async (id) => ledger.deleteNow(id),
    ping: async () => undefined,
    close: async () => undefined,
  };
}
