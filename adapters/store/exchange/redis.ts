/**
 * Redis exchange store. Layout under a prefix (default `exchange`), readable by an operator; on a
 * Redis Cluster an account's keys carry its id as hash tag, `<p>:account:{<id>}...` (`redis-keys.ts`):
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
 *   <p>:account:<id>:engine-order-ids list engine order ids, oldest first (place n: the order with integer id n, docs/orders.md#ids)
 *   <p>:account:<id>:client-ids    hash  client order id -> engine order id
 *   <p>:account:<id>:open-orders   set   ids of the account's open engine orders (a restart reloads them, account by account)
 *   <p>:account:<id>:trades        list  fills of engine orders, oldest first (place n: the fill with integer id n)
 *   <p>:account:<id>:relayed       hash  the relay cursor of the account's events: journal id, orders relayed
 * Every script touches one account's keys or one global key, never both (one hash slot).
 */
import * as v from 'valibot';
import { journalFieldList, journalFields, parseJournalEntry } from '../../../machines/exchange/journal.ts';
import type { Balances } from '../../../machines/exchange/ledger.ts';
import { dec } from '../../../machines/exchange/money.ts';
import { log as rootLog, type Logger } from '../../../kernel/log.ts';
import { AccountJson, DecimalText, PositionJson, positionsFromJson, positionToJson } from './codec.ts';
import type { Cluster, Redis } from 'ioredis';
import type {
  AccountRecord,
  EquityPoint,
  ExchangeStore,
  IdempotencyRecord,
  LedgerOutbox,
  LoadedAccount,
  OpenEngineOrder,
  OrderRecord,
  TradeRecord,
} from './port.ts';
import { CLAIM_NAME, COMMIT, CREATE_ACCOUNT, DELETE_ACCOUNT, LOAD, RELEASE_NAME, RESTATE_RECORD, SET_FEES } from './redis-scripts.ts';
import { allAccountKeys, commitKeys, exchangeKeys } from './redis-keys.ts';
import { redisOutbox } from './redis-outbox.ts';
import { openRedis } from '../redis/client.ts';
import { writeDeadline } from '../redis/script.ts';
import { awaitReplicas, NO_REPLICA_WAIT, type Durability } from '../redis/durability.ts';
import type { RedisTarget } from '../redis/target.ts';
import { ResetMap } from '../../../kernel/reset-map.ts';

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
  ];
}

/**
 * The store on `redis`: a target — a URL, a primary named by Sentinels, or a cluster (a connection
 * of its own, closed by `close`) — or a client, single server or Cluster, that the caller owns and
 * closes. A connection made here is made for outages (`../redis/client.ts`): while Redis is down
 * every call rejects with RedisUnavailable within 2 s, and a write that reaches Redis after its
 * deadline writes nothing; `watch` follows it. With `durability.minReplicas` > 0 every write
 * (account creation, each ledger commit, fees, deletion) is followed by WAIT on the same connection
 * and rejects with RedisNotDurable when too few replicas took it (docs/operations.md#redis-with-sentinel);
 * so is a load that finds an idempotency record (its commit may have been answered "not
 * confirmed", and the repeat must not answer it as done before replicas hold it).
 */
export function createRedisExchangeStore(
  redisOrTarget: string | RedisTarget | Redis | Cluster,
  prefix = 'exchange',
  log: Logger = rootLog,
  durability: Durability = NO_REPLICA_WAIT,
  watch?: (up: boolean) => void,
): ExchangeStore & { outbox: LedgerOutbox } {
  const owned = typeof redisOrTarget === 'string' || 'kind' in redisOrTarget;
  const redis = typeof redisOrTarget === 'string' || 'kind' in redisOrTarget ? openRedis(redisOrTarget, { log, name: 'exchange', watch }) : redisOrTarget;
  /** `out` once enough replicas hold the write that produced it (docs/decisions.md#a-commit-waits-for-a-replica). */
  const replicated = async <T>(out: T): Promise<T> => {
    await awaitReplicas(redis, durability);
    return out;
  };
  const layout = exchangeKeys(prefix, redis.isCluster);
  const accounts = layout.accounts;
  const k = layout.account;
  const pointScore = (p: EquityPoint) => String(Date.parse(p.ts));
  // COMMIT's keys of the accounts committed to lately, made once per account rather than once per order
  const committedKeys = new ResetMap<string, string[]>(10_000);
  const keysOfCommit = (id: string): string[] => {
    let held = committedKeys.get(id);
    if (held === undefined) committedKeys.set(id, (held = commitKeys(k(id))));
    return held;
  };
  const listAccount = async (id: string) => {
    const createdAt = await redis.hget(k(id).account, 'createdAt');
    if (createdAt !== null) await redis.zadd(accounts, String(Date.parse(createdAt)), id);
  };

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
      const deadline = writeDeadline();
      const created = await CREATE_ACCOUNT.run(
        redis,
        [keys.account, keys.journal, keys.equity, keys.relayed],
        [JSON.stringify(hash), JSON.stringify(Object.entries(journalFields(opening)).flat()), pointScore(point), JSON.stringify(point)],
        deadline,
      );
      if (created !== 'created') return 'name_taken'; // a random id taken: as good as a taken name, never seen
      // the name and the list are global keys, written after the account (docs/operations.md#where-state-lives-in-redis)
      let ghost = '';
      for (;;) {
        const claim = await CLAIM_NAME.run(redis, [layout.names], [account.name, account.id, ghost], deadline);
        if (claim === 'claimed') break;
        const owner = String(claim);
        if ((await redis.exists(k(owner).account)) === 0 && ghost !== owner) {
          ghost = owner; // held by an account deleted midway: take it over
          continue;
        }
        await redis.del(...allAccountKeys(keys));
        // an account whose creation stopped after its name: list it, so what holds the name can be seen
        if ((await redis.zscore(accounts, owner)) === null) await listAccount(owner);
        return 'name_taken';
      }
      await redis.zadd(accounts, String(Date.parse(account.createdAt)), account.id);
      return replicated('created');
    },

    async load(id, idempotencyKey): Promise<LoadedAccount | null> {
      const keys = k(id);
      // one script, not MULTI/EXEC: a single command that rides the client's auto-pipeline with the other orders' commands
      const [fields, positionFields, idem, orderCount, tradeCount] = (await LOAD.run(
        redis,
        [keys.account, keys.positions, keys.idempotency, keys.engineOrderIds, keys.trades],
        idempotencyKey === undefined ? [] : [idempotencyKey],
      )) as [string[], string[], string | null, number, number];
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
      return { bundle: { account, balances, lastIds: { order: orderCount, trade: tradeCount }, version: Number(h.version) }, idempotency };
    },

    async commit(id, expectedVersion, change) {
      const b = change.balances;
      const positions: Record<string, string> = {};
      for (const symbol in b.positions) {
        const p = b.positions[symbol as keyof typeof b.positions];
        if (p) positions[p.symbol] = JSON.stringify(positionToJson(p));
      }
      // assigned field by field: a commit per order is the exchange's hot path (docs/operations.md#benchmarks)
      const text: CommitText = {
        cash: b.cash.toFixed(),
        cashLocked: b.cashLocked.toFixed(),
        netDeposits: b.netDeposits.toFixed(),
        feesPaid: b.feesPaid.toFixed(),
        positions,
        journal: change.journal.map(journalFieldList),
      };
      if (change.order) text.order = JSON.stringify(change.order);
      if (change.equityPoint) text.equity = { score: pointScore(change.equityPoint), member: JSON.stringify(change.equityPoint) };
      if (change.idempotency) text.idem = { key: change.idempotency.key, value: JSON.stringify(change.idempotency.record) };
      if (change.orderState) text.state = { id: change.orderState.orderId, json: JSON.stringify(change.orderState.state) };
      if (change.engineOrders)
        text.engineOrders = change.engineOrders.map((w) => ({ id: w.orderId, cid: w.clientOrderId, open: w.open, state: JSON.stringify(w.state) }));
      if (change.trades) text.trades = change.trades.map((t) => JSON.stringify(t));
      const out = await COMMIT.run(redis, keysOfCommit(id), commitArgs(expectedVersion, text));
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
      const id =
        'orderId' in ref
          ? ref.orderId
          : 'clientOrderId' in ref
            ? await redis.hget(keys.clientIds, ref.clientOrderId)
            : ref.number >= 1 && Number.isSafeInteger(ref.number)
              ? await redis.lindex(keys.engineOrderIds, ref.number - 1)
              : null;
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
      // every account's own set: no global index to keep in step (docs/operations.md#where-state-lives-in-redis)
      const ids = only === undefined ? await redis.zrange(accounts, '0', '-1') : [only];
      const lists: OpenEngineOrder[][] = [];
      const one = async (accountId: string): Promise<OpenEngineOrder[]> => {
        const open = await redis.smembers(k(accountId).open);
        if (open.length === 0) return [];
        const states = await redis.hmget(k(accountId).engineOrders, ...open);
        return states.filter((s): s is string => s !== null).map((s) => ({ accountId, state: JSON.parse(s) as unknown }));
      };
      // a few hundred accounts at a time: a start over many accounts sends no unbounded burst
      for (let i = 0; i < ids.length; i += 500) lists.push(...(await Promise.all(ids.slice(i, i + 500).map(one))));
      return lists.flat();
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
      const name = await DELETE_ACCOUNT.run(redis, allAccountKeys(keys), []);
      if (typeof name === 'string') await RELEASE_NAME.run(redis, [layout.names], [name, id]);
      await redis.zrem(accounts, id);
      return replicated(typeof name === 'string');
    },

    async ping() {
      await redis.ping();
    },

    outbox: redisOutbox(redis, k),

    async close() {
      if (owned) await redis.quit().catch(() => undefined);
    },
  };
}
