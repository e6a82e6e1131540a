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
 *   <p>:account:<id>:order-states  hash  order id -> persisted XState snapshot
 *   <p>:account:<id>:orders-unfinished set order ids whose actor has not reached a final state
 */
import { Redis } from 'ioredis';
import * as v from 'valibot';
import { BOOK_SYMBOLS, type BookSymbol } from '../feed/port.ts';
import type { Balances, PositionState } from '../../runtime/exchange/ledger.ts';
import { journalFields, parseJournalEntry } from '../../runtime/exchange/journal.ts';
import { dec } from '../../runtime/exchange/money.ts';
import type { AccountRecord, EquityPoint, ExchangeStore, IdempotencyRecord, LoadedAccount, OrderRecord } from './exchange-port.ts';
import { COMMIT, CREATE_ACCOUNT, DELETE_ACCOUNT, SAVE_ORDER_STATE } from './exchange-redis-scripts.ts';

const decimalText = v.pipe(v.string(), v.regex(/^-?\d+(\.\d+)?$/));
const AccountHash = v.object({
  id: v.string(),
  name: v.string(),
  baseCurrency: v.literal('USDT'),
  initialCash: decimalText,
  feeRate: decimalText,
  createdAt: v.string(),
  cash: decimalText,
  netDeposits: decimalText,
  feesPaid: decimalText,
  version: v.pipe(v.string(), v.regex(/^\d+$/)),
});
const PositionJson = v.object({ qty: decimalText, costBasis: decimalText, realizedPnl: decimalText });
const IdempotencyJson = v.object({ fingerprint: v.string(), status: v.number(), body: v.record(v.string(), v.string()) });

const positionText = (p: PositionState): string =>
  JSON.stringify({ qty: p.qty.toFixed(), costBasis: p.costBasis.toFixed(), realizedPnl: p.realizedPnl.toFixed() });

const isSymbol = (s: string): s is BookSymbol => (BOOK_SYMBOLS as readonly string[]).includes(s);

function readPositions(hash: Record<string, string>): Balances['positions'] {
  const out: Balances['positions'] = {};
  for (const [symbol, json] of Object.entries(hash)) {
    if (!isSymbol(symbol)) continue;
    const p = v.parse(PositionJson, JSON.parse(json));
    out[symbol] = { symbol, qty: dec(p.qty), costBasis: dec(p.costBasis), realizedPnl: dec(p.realizedPnl) };
  }
  return out;
}

type ExecResult = [error: Error | null, result: unknown][] | null;
function results(r: ExecResult): unknown[] {
  if (!r) throw new Error('redis transaction aborted');
  return r.map(([err, res]) => {
    if (err) throw err;
    return res;
  });
}

/** Connects to `url` and returns the store (the connection is closed by `close`). */
export function redisExchangeStore(url: string, prefix = 'exchange'): ExchangeStore {
  const redis = new Redis(url, { maxRetriesPerRequest: 3 });
  const names = `${prefix}:names`;
  const accounts = `${prefix}:accounts`;
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
      unfinished: `${base}:orders-unfinished`,
    };
  };
  const pointScore = (p: EquityPoint) => String(Date.parse(p.ts));

  return {
    async createAccount(account, balances, opening, point) {
      const keys = k(account.id);
      const hash = [
        'id', account.id, 'name', account.name, 'baseCurrency', account.baseCurrency,
        'initialCash', account.initialCash.toFixed(), 'feeRate', account.feeRate.toFixed(), 'createdAt', account.createdAt,
        'cash', balances.cash.toFixed(), 'netDeposits', balances.netDeposits.toFixed(), 'feesPaid', balances.feesPaid.toFixed(),
        'version', '1',
      ];
      const out = await CREATE_ACCOUNT.run(
        redis,
        [names, accounts, keys.account, keys.journal, keys.equity],
        [account.name, account.id, String(Date.parse(account.createdAt)), JSON.stringify(hash),
          JSON.stringify(Object.entries(journalFields(opening)).flat()), pointScore(point), JSON.stringify(point)],
      );
      return out === 'created' ? 'created' : 'name_taken';
    },

    async load(id, idempotencyKey): Promise<LoadedAccount | null> {
      const keys = k(id);
      const tx = redis.multi().hgetall(keys.account).hgetall(keys.positions);
      if (idempotencyKey !== undefined) tx.hget(keys.idempotency, idempotencyKey);
      const [hash, positions, idem] = results(await tx.exec());
      if (!hash || Object.keys(hash as object).length === 0) return null;
      const h = v.parse(AccountHash, hash);
      const account: AccountRecord = {
        id: h.id, name: h.name, baseCurrency: h.baseCurrency, initialCash: dec(h.initialCash), feeRate: dec(h.feeRate), createdAt: h.createdAt,
      };
      const balances: Balances = {
        cash: dec(h.cash), netDeposits: dec(h.netDeposits), feesPaid: dec(h.feesPaid),
        positions: readPositions(positions as Record<string, string>),
      };
      const idempotency: IdempotencyRecord | null = typeof idem === 'string' ? v.parse(IdempotencyJson, JSON.parse(idem)) : null;
      return { bundle: { account, balances, version: Number(h.version) }, idempotency };
    },

    async commit(id, expectedVersion, change) {
      const keys = k(id);
      const positions: Record<string, string> = {};
      for (const p of Object.values(change.balances.positions)) positions[p.symbol] = positionText(p);
      const payload: Record<string, unknown> = {
        cash: change.balances.cash.toFixed(),
        netDeposits: change.balances.netDeposits.toFixed(),
        feesPaid: change.balances.feesPaid.toFixed(),
        positions,
        journal: change.journal.map((e) => Object.entries(journalFields(e)).flat()),
      };
      // cjson turns an empty object into an empty array: harmless for `pairs`.
      if (change.order) payload.order = JSON.stringify(change.order);
      if (change.equityPoint) payload.equity = { score: pointScore(change.equityPoint), member: JSON.stringify(change.equityPoint) };
      if (change.idempotency) payload.idem = { key: change.idempotency.key, value: JSON.stringify(change.idempotency.record) };
      const out = await COMMIT.run(
        redis,
        [keys.account, keys.positions, keys.orders, keys.equity, keys.journal, keys.idempotency],
        [String(expectedVersion), JSON.stringify(payload)],
      );
      return out === 'committed' ? 'committed' : out === 'missing' ? 'missing' : 'conflict';
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

    async saveOrderState(accountId, orderId, snapshot) {
      const keys = k(accountId);
      const status = (snapshot as { status?: unknown } | null)?.status === 'active' ? 'active' : 'done';
      await SAVE_ORDER_STATE.run(redis, [keys.account, keys.orderStates, keys.unfinished], [orderId, JSON.stringify(snapshot), status]);
    },

    async readOrderState(accountId, orderId) {
      const s = await redis.hget(k(accountId).orderStates, orderId);
      return s === null ? null : (JSON.parse(s) as unknown);
    },

    async unfinishedOrderStates(accountId) {
      const keys = k(accountId);
      const ids = await redis.smembers(keys.unfinished);
      if (ids.length === 0) return [];
      const states = await redis.hmget(keys.orderStates, ...ids);
      return ids.flatMap((orderId, i) => {
        const s = states[i];
        return typeof s === 'string' ? [{ orderId, snapshot: JSON.parse(s) as unknown }] : [];
      });
    },

    async deleteAccount(id) {
      const keys = k(id);
      const out = await DELETE_ACCOUNT.run(
        redis,
        [keys.account, names, accounts, keys.positions, keys.orders, keys.equity, keys.journal, keys.idempotency, keys.orderStates, keys.unfinished],
        [id],
      );
      return out === 1;
    },

    async close() {
      await redis.quit();
    },
  };
}
