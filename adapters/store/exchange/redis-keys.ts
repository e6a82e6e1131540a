/**
 * The names of the Redis exchange store's keys (docs/operations.md#where-state-lives-in-redis), in
 * one place. On Redis Cluster a script may only touch keys of one hash slot, so there the keys of
 * one account share a hash tag (`<p>:account:{<id>}...`) and every script runs on one account or on
 * one global key; on a single server the names stay as they always were (`<p>:account:<id>...`),
 * so existing data keeps working without a migration.
 *
 * @example
 *   const keys = exchangeKeys('exchange', redis.isCluster);
 *   keys.account('a1').journal; // 'exchange:account:{a1}:journal' on a cluster
 */

/** The keys one account owns (all in one hash slot on a cluster). */
export interface AccountKeys {
  account: string;
  positions: string;
  orders: string;
  equity: string;
  journal: string;
  idempotency: string;
  orderStates: string;
  engineOrders: string;
  engineOrderIds: string;
  clientIds: string;
  open: string;
  trades: string;
  /** the relay cursor of the account's events (docs/operations.md#exchange-events-outbox) */
  relayed: string;
}

/** The store's global keys and the keys of each account. */
export interface ExchangeKeys {
  /** hash: name -> account id */
  names: string;
  /** zset: account ids by creation time */
  accounts: string;
  /** set: `<account id> <order id>` of every open order, written by earlier versions only (no longer read or written) */
  legacyOpenOrders: string;
  account(id: string): AccountKeys;
}

/** The keys COMMIT takes, in its order (`redis-scripts.ts`). */
export const commitKeys = (k: AccountKeys): string[] => [
  k.account,
  k.positions,
  k.orders,
  k.equity,
  k.journal,
  k.idempotency,
  k.orderStates,
  k.engineOrders,
  k.engineOrderIds,
  k.clientIds,
  k.open,
  k.trades,
];

/** Every key of an account, the account hash first (`DELETE_ACCOUNT` reads its name there, then deletes them all). */
export const allAccountKeys = (k: AccountKeys): string[] => [...commitKeys(k), k.relayed];

/** The key names under `prefix`; `cluster`: each account's keys carry the account id as their hash tag. */
export function exchangeKeys(prefix: string, cluster: boolean): ExchangeKeys {
  return {
    names: `${prefix}:names`,
    accounts: `${prefix}:accounts`,
    legacyOpenOrders: `${prefix}:open-orders`,
    account(id) {
      const base = cluster ? `${prefix}:account:{${id}}` : `${prefix}:account:${id}`;
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
        relayed: `${base}:relayed`,
      };
    },
  };
}
