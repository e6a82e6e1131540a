/**
 * Redis exchange store. Layout under a prefix (default `exchange`), readable by an operator:
 *   <p>:names                      hash  name -> account id (unique names)
 *   <p>:accounts                   zset  account ids by creation time
 *   <p>:account:<id>               hash  facts, cash, netDeposits, feesPaid, version
 *   <p>:account:<id>:positions     hash  symbol -> {qty, costBasis, realizedPnl}
 *   <p>:account:<id>:orders        list  order records with fills, oldest first
 *   <p>:account:<id>:equity        zset  equity points by time
 *   <p>:account:<id>:journal       stream the append-only journal
 *   <p>:account:<id>:idempotency   hash  Idempotency-Key -> {fingerprint, status, body}
 *   <p>:account:<id>:order-states  hash  order id -> the order's final machine snapshot (saved by its commit)
 *   <p>:account:<id>:engine-orders hash  engine order id -> its machine snapshot (docs/orders.md)
 *   <p>:account:<id>:engine-order-ids list engine order ids, oldest first
 *   <p>:account:<id>:client-ids    hash  client order id -> engine order id
 *   <p>:account:<id>:open-orders   set   ids of the account's open engine orders
 *   <p>:account:<id>:trades        list  fills of engine orders, oldest first
 *   <p>:open-orders                set   "<account id> <order id>" of every open engine order (reloaded at boot)
 */
import * as v from 'valibot';
import { journalFields, parseJournalEntry } from '../../../machines/exchange/journal.ts';
import type { Balances } from '../../../machines/exchange/ledger.ts';
import { dec } from '../../../machines/exchange/money.ts';
import { log as rootLog, type Logger } from '../../../kernel/log.ts';
import { AccountJson, DecimalText, PositionJson, positionsFromJson, positionToJson } from './codec.ts';
import type { AccountRecord, EquityPoint, ExchangeStore, IdempotencyRecord, LoadedAccount, OpenEngineOrder, OrderRecord, TradeRecord } from './port.ts';
import { COMMIT, CREATE_ACCOUNT, DELETE_ACCOUNT, LOAD, RESTATE_RECORD, SET_FEES } from './redis-scripts.ts';
import { openRedis } from '../redis/client.ts';
import { awaitReplicas, NO_REPLICA_WAIT, type Durability } from '../redis/durability.ts';
import type { RedisTarget } from '../redis/target.ts';

/** The account hash: the account's own fields and its balances' scalars, with the version commits check. */
const AccountHash = v.object({
  ...AccountJson.entries,
  cash: DecimalText,
  cashLocked: v.optional(DecimalText, '0'),
  netDeposits: DecimalText,
  feesPaid: DecimalText,
  version: v.pipe(v.string(), v.regex(/^\d+$/)),
});
const PositionsHash = v.record(v.string(), v.pipe(v.string(), v.parseJson(), PositionJson));
const IdempotencyJson = v.object({ fingerprint: v.string(), status: v.number(), body: v.record(v.string(), v.string()) });

/** Positions as stored (symbol -> JSON); symbols the exchange does not trade are ignored. */
const readPositions = (hash: Record<string, string>): Balances['positions'] => positionsFromJson(v.parse(PositionsHash, hash));

/** A flat [field, value, ...] reply (HGETALL inside a script) as a record. */
function pairsOf(flat: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i] as string] = flat[i + 1] as string;
  return out;
}

/** A ledger change as the COMMIT script stores it: every value already the text Redis keeps. */
export interface CommitText {
  cash: string;
  cashLocked: string;
  netDeposits: string;
  feesPaid: string;
  /** symbol -> position JSON */
  positions: Record<string, string>;
  /** journal entries as [field, value, ...] */
  journal: string[][];
  order?: string;
  equity?: { score: string; member: string };
  idem?: { key: string; value: string };
  state?: { id: string; json: string };
  /** engine order writes: id, client id, open, snapshot JSON */
  engineOrders?: { id: string; cid: string; open: boolean; state: string }[];
  /** trade records as JSON */
  trades?: string[];
  accountId?: string;
}

/** The COMMIT script's ARGV (without its deadline) for `change` expected at `expectedVersion`. */
export function commitArgs(expectedVersion: number, c: CommitText): string[] {
  // cjson turns an empty object into an empty array: harmless for `pairs`.
  const balances = JSON.stringify({
    cash: c.cash,
    cashLocked: c.cashLocked,
    netDeposits: c.netDeposits,
    feesPaid: c.feesPaid,
    positions: c.positions,
    journal: c.journal,
  });
  return [
    String(expectedVersion),
    balances,
    c.order ?? '',
    c.equity?.score ?? '',
    c.equity?.member ?? '',
    c.idem?.key ?? '',
    c.idem?.value ?? '',
    c.state?.id ?? '',
    c.state?.json ?? '',
    c.engineOrders?.length ? JSON.stringify(c.engineOrders) : '',
    c.trades?.length ? JSON.stringify(c.trades) : '',
    c.accountId ?? '',
  ];
}

/**
 * Connects to `target` (a URL, or a primary named by Sentinels) and returns the store (the
 * connection is closed by `close`). The client is made for outages (`../redis/client.ts`): while
 * Redis is down every call rejects with RedisUnavailable within 2 s, and a write that reaches
 * Redis after its deadline writes nothing. With `durability.minReplicas` > 0 every write (account
 * creation, each ledger commit, fees, deletion) is followed by WAIT on the same connection and
 * rejects with RedisNotDurable when too few replicas took it (docs/operations.md#redis-with-sentinel);
 * so is a load that finds an idempotency record (its commit may have been answered "not
 * confirmed", and the repeat must not answer it as done before replicas hold it).
 * `watch` follows the connection (`openRedis`).
 */
export function createRedisExchangeStore(
  target: string | RedisTarget,
  prefix = 'exchange',
  log: Logger = rootLog,
  durability: Durability = NO_REPLICA_WAIT,
  watch?: (up: boolean) => void,
): ExchangeStore {
  const redis = openRedis(target, { log, name: 'exchange', watch });
  /** `out` once enough replicas hold the write that produced it (docs/decisions.md#a-commit-waits-for-a-replica). */
  const replicated = async <T>(out: T): Promise<T> => {
    await awaitReplicas(redis, durability);
    return out;
  };
  const names = `${prefix}:names`;
  const accounts = `${prefix}:accounts`;
  const allOpen = `${prefix}:open-orders`;
  const k = (id: string) => {
    const base = `${prefix}:account:${id}`;
    return {
      account: base,
      positions: `${base}:positions`,
      orders: `${base}:orders`,
      equity: `${base}:equity`,
      journal: `${base}:journal`,
      idempotency: `${base}:idempotency`,
      orderStates: `${base}:order-states`,
      engineOrders: `${base}:engine-orders`,
      engineOrderIds: `${base}:engine-order-ids`,
      clientIds: `${base}:client-ids`,
      open: `${base}:open-orders`,
      trades: `${base}:trades`,
    };
  };
  const pointScore = (p: EquityPoint) => String(Date.parse(p.ts));

  return {
    kind: 'redis',
    async createAccount(account, balances, opening, point) {
      const keys = k(account.id);
      const hash = [
        'id',
        account.id,
        'name',
        account.name,
        'baseCurrency',
        account.baseCurrency,
        'initialCash',
        account.initialCash.toFixed(),
        'feeRate',
        account.feeRate.toFixed(),
        ...(account.makerFeeRate === undefined ? [] : ['makerFeeRate', account.makerFeeRate.toFixed()]),
        'createdAt',
        account.createdAt,
        'cash',
        balances.cash.toFixed(),
        'cashLocked',
        balances.cashLocked.toFixed(),
        'netDeposits',
        balances.netDeposits.toFixed(),
        'feesPaid',
        balances.feesPaid.toFixed(),
        'version',
        '1',
      ];
      const out = await CREATE_ACCOUNT.run(
        redis,
        [names, accounts, keys.account, keys.journal, keys.equity],
        [
          account.name,
          account.id,
          String(Date.parse(account.createdAt)),
          JSON.stringify(hash),
          JSON.stringify(Object.entries(journalFields(opening)).flat()),
          pointScore(point),
          JSON.stringify(point),
        ],
      );
      return out === 'created' ? replicated('created') : 'name_taken';
    },

    async load(id, idempotencyKey): Promise<LoadedAccount | null> {
      const keys = k(id);
      // one script, not MULTI/EXEC: a single command that rides the client's auto-pipeline with the other orders' commands
      const [fields, positionFields, idem] = (await LOAD.run(
        redis,
        [keys.account, keys.positions, keys.idempotency],
        idempotencyKey === undefined ? [] : [idempotencyKey],
      )) as [string[], string[], string | null];
      if (fields.length === 0) return null;
      const h = v.parse(AccountHash, pairsOf(fields));
      const positions = pairsOf(positionFields);
      const account: AccountRecord = {
        id: h.id,
        name: h.name,
        baseCurrency: h.baseCurrency,
        initialCash: dec(h.initialCash),
        feeRate: dec(h.feeRate),
        ...(h.makerFeeRate === undefined ? {} : { makerFeeRate: dec(h.makerFeeRate) }),
        createdAt: h.createdAt,
      };
      const balances: Balances = {
        cash: dec(h.cash),
        cashLocked: dec(h.cashLocked),
        netDeposits: dec(h.netDeposits),
        feesPaid: dec(h.feesPaid),
        positions: readPositions(positions),
      };
      const idempotency: IdempotencyRecord | null = typeof idem === 'string' ? v.parse(IdempotencyJson, JSON.parse(idem)) : null;
      // a repeat is answered from the record only once replicas hold it: the first answer may have been a 503 "not confirmed"
      if (typeof idem === 'string' && idempotencyKey !== undefined && durability.minReplicas > 0) {
        await RESTATE_RECORD.run(redis, [keys.idempotency], [idempotencyKey, idem]);
        await awaitReplicas(redis, durability);
      }
      return { bundle: { account, balances, version: Number(h.version) }, idempotency };
    },

    async commit(id, expectedVersion, change) {
      const keys = k(id);
      const positions: Record<string, string> = {};
      for (const p of Object.values(change.balances.positions)) positions[p.symbol] = JSON.stringify(positionToJson(p));
      const out = await COMMIT.run(
        redis,
        [
          keys.account,
          keys.positions,
          keys.orders,
          keys.equity,
          keys.journal,
          keys.idempotency,
          keys.orderStates,
          keys.engineOrders,
          keys.engineOrderIds,
          keys.clientIds,
          keys.open,
          allOpen,
          keys.trades,
        ],
        commitArgs(expectedVersion, {
          accountId: id,
          cash: change.balances.cash.toFixed(),
          cashLocked: change.balances.cashLocked.toFixed(),
          netDeposits: change.balances.netDeposits.toFixed(),
          feesPaid: change.balances.feesPaid.toFixed(),
          positions,
          journal: change.journal.map((e) => Object.entries(journalFields(e)).flat()),
          ...(change.order ? { order: JSON.stringify(change.order) } : {}),
          ...(change.equityPoint ? { equity: { score: pointScore(change.equityPoint), member: JSON.stringify(change.equityPoint) } } : {}),
          ...(change.idempotency ? { idem: { key: change.idempotency.key, value: JSON.stringify(change.idempotency.record) } } : {}),
          ...(change.orderState ? { state: { id: change.orderState.orderId, json: JSON.stringify(change.orderState.state) } } : {}),
          ...(change.engineOrders
            ? { engineOrders: change.engineOrders.map((w) => ({ id: w.orderId, cid: w.clientOrderId, open: w.open, state: JSON.stringify(w.state) })) }
            : {}),
          ...(change.trades ? { trades: change.trades.map((t) => JSON.stringify(t)) } : {}),
        }),
      );
      return out === 'committed' ? replicated('committed') : out === 'missing' ? 'missing' : 'conflict';
    },

    async listAccountIds() {
      return redis.zrange(accounts, '0', '-1');
    },

    async orders(id, limit) {
      const raw = await redis.lrange(k(id).orders, -limit, -1);
      return raw.reverse().map((s) => JSON.parse(s) as OrderRecord);
    },

    async equity(id, sinceMs) {
      const raw = await redis.zrangebyscore(k(id).equity, Number.isFinite(sinceMs) ? String(sinceMs) : '-inf', '+inf');
      return raw.map((s) => JSON.parse(s) as EquityPoint);
    },

    async journal(id) {
      const raw = await redis.xrange(k(id).journal, '-', '+');
      return raw.map(([, fields]) => {
        const rec: Record<string, string> = {};
        for (let i = 0; i + 1 < fields.length; i += 2) rec[fields[i] as string] = fields[i + 1] as string;
        return parseJournalEntry(rec);
      });
    },

    async readOrderState(accountId, orderId) {
      const s = await redis.hget(k(accountId).orderStates, orderId);
      return s === null ? null : (JSON.parse(s) as unknown);
    },

    async engineOrder(accountId, ref) {
      const keys = k(accountId);
      const id = 'orderId' in ref ? ref.orderId : await redis.hget(keys.clientIds, ref.clientOrderId);
      const s = id === null ? null : await redis.hget(keys.engineOrders, id);
      return s === null ? null : (JSON.parse(s) as unknown);
    },

    async engineOrders(accountId) {
      const keys = k(accountId);
      const ids = await redis.lrange(keys.engineOrderIds, 0, -1);
      if (ids.length === 0) return [];
      const states = await redis.hmget(keys.engineOrders, ...ids);
      return states.filter((s): s is string => s !== null).map((s) => JSON.parse(s) as unknown);
    },

    async openEngineOrders(only) {
      const byAccount = new Map<string, string[]>();
      if (only !== undefined) byAccount.set(only, await redis.smembers(k(only).open));
      else
        for (const member of await redis.smembers(allOpen)) {
          const [accountId = '', orderId = ''] = member.split(' ');
          const ids = byAccount.get(accountId);
          if (ids) ids.push(orderId);
          else byAccount.set(accountId, [orderId]);
        }
      const out: OpenEngineOrder[] = [];
      for (const [accountId, ids] of byAccount) {
        if (ids.length === 0) continue;
        const states = await redis.hmget(k(accountId).engineOrders, ...ids);
        for (const s of states) if (s !== null) out.push({ accountId, state: JSON.parse(s) as unknown });
      }
      return out;
    },

    async trades(accountId) {
      const raw = await redis.lrange(k(accountId).trades, 0, -1);
      return raw.map((s) => JSON.parse(s) as TradeRecord);
    },

    async setFees(id, fees) {
      return replicated((await SET_FEES.run(redis, [k(id).account], [fees.feeRate.toFixed(), fees.makerFeeRate.toFixed()])) === 1);
    },

    async deleteAccount(id) {
      const keys = k(id);
      const out = await DELETE_ACCOUNT.run(
        redis,
        [
          keys.account,
          names,
          accounts,
          allOpen,
          keys.open,
          keys.positions,
          keys.orders,
          keys.equity,
          keys.journal,
          keys.idempotency,
          keys.orderStates,
          keys.engineOrders,
          keys.engineOrderIds,
          keys.clientIds,
          keys.trades,
        ],
        [id],
      );
      return replicated(out === 1);
    },

    async ping() {
      await redis.ping();
    },

    async close() {
      await redis.quit().catch(() => undefined);
    },
  };
}
