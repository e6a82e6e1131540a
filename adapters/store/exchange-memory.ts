/**
 * In-memory exchange store: the embedded default when REDIS_URL is unset. Same port and
 * same guarantees within one process (commits are synchronous, so a version check is
 * enough); nothing survives a restart.
 */
import type { Balances } from '../../runtime/exchange/ledger.ts';
import type { JournalEntry } from '../../runtime/exchange/journal.ts';
import type {
  AccountRecord,
  CommitOutcome,
  EquityPoint,
  ExchangeStore,
  IdempotencyRecord,
  LedgerCommit,
  LoadedAccount,
  OrderRecord,
} from './exchange-port.ts';

interface Held {
  account: AccountRecord;
  balances: Balances;
  version: number;
  journal: JournalEntry[];
  orders: OrderRecord[];
  equity: EquityPoint[];
  idempotency: Map<string, IdempotencyRecord>;
  orderStates: Map<string, string>;
}

const isActive = (snapshot: unknown): boolean => (snapshot as { status?: unknown } | null)?.status === 'active';
const copyBalances = (b: Balances): Balances => ({ ...b, positions: { ...b.positions } });
const clone = <T>(x: T): T => structuredClone(x);

/** Creates an empty in-memory store. */
export function memoryExchangeStore(): ExchangeStore {
  const accounts = new Map<string, Held>();
  const names = new Map<string, string>();

  return {
    async createAccount(account, balances, opening, point) {
      if (names.has(account.name)) return 'name_taken';
      names.set(account.name, account.id);
      accounts.set(account.id, {
        account,
        balances: copyBalances(balances),
        version: 1,
        journal: [clone(opening)],
        orders: [],
        equity: [clone(point)],
        idempotency: new Map(),
        orderStates: new Map(),
      });
      return 'created';
    },

    async load(id, idempotencyKey): Promise<LoadedAccount | null> {
      const h = accounts.get(id);
      if (!h) return null;
      const idem = idempotencyKey === undefined ? undefined : h.idempotency.get(idempotencyKey);
      return {
        bundle: { account: h.account, balances: copyBalances(h.balances), version: h.version },
        idempotency: idem ? clone(idem) : null,
      };
    },

    async commit(id, expectedVersion, change: LedgerCommit): Promise<CommitOutcome> {
      const h = accounts.get(id);
      if (!h) return 'missing';
      if (h.version !== expectedVersion) return 'conflict';
      if (change.idempotency && h.idempotency.has(change.idempotency.key)) return 'conflict';
      h.balances = copyBalances(change.balances);
      h.journal.push(...clone(change.journal));
      if (change.order) h.orders.push(clone(change.order));
      if (change.equityPoint) h.equity.push(clone(change.equityPoint));
      if (change.idempotency) h.idempotency.set(change.idempotency.key, clone(change.idempotency.record));
      h.version += 1;
      return 'committed';
    },

    async listAccountIds() {
      return [...accounts.keys()];
    },

    async orders(id, limit) {
      const h = accounts.get(id);
      return h ? clone(h.orders.slice(-limit).reverse()) : [];
    },

    async equity(id, sinceMs) {
      const h = accounts.get(id);
      return h ? clone(h.equity.filter((p) => Date.parse(p.ts) >= sinceMs)) : [];
    },

    async journal(id) {
      return clone(accounts.get(id)?.journal ?? []);
    },

    async saveOrderState(accountId, orderId, snapshot) {
      accounts.get(accountId)?.orderStates.set(orderId, JSON.stringify(snapshot));
    },

    async readOrderState(accountId, orderId) {
      const s = accounts.get(accountId)?.orderStates.get(orderId);
      return s === undefined ? null : (JSON.parse(s) as unknown);
    },

    async unfinishedOrderStates(accountId) {
      const states = accounts.get(accountId)?.orderStates ?? new Map<string, string>();
      return [...states]
        .map(([orderId, s]) => ({ orderId, snapshot: JSON.parse(s) as unknown }))
        .filter(({ snapshot }) => isActive(snapshot));
    },

    async deleteAccount(id) {
      const h = accounts.get(id);
      if (!h) return false;
      accounts.delete(id);
      names.delete(h.account.name);
      return true;
    },

    async close() {},
  };
}
