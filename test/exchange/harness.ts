/**
 * One exchange under black-box test: `bin/exchange.ts` as a child process with a private NATS
 * (books published by the test) and a private Redis (the ledger, also read directly): one server,
 * or with `{ redis: 'cluster' }` a Redis Cluster of three masters (`REDIS_CLUSTER_NODES`, the
 * ledger's keys tagged by account: docs/operations.md#redis-cluster).
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { Cluster, Redis } from 'ioredis';
import * as v from 'valibot';
import { afterAll, beforeAll, expect } from 'vitest';
import { connectNats } from '../../adapters/feed/nats-connection.ts';
import { ErrorView } from '../../server/exchange/wire.ts';
import { exchangeKeys, type ExchangeKeys } from '../../adapters/store/exchange/redis-keys.ts';
import { startPrivateRedis } from '../support/redis-cluster.ts';
import { freePort, startNatsServer, startRedisServer, startService, type RunningServer, type ServiceProcess } from '../support/servers.ts';
import { parseJournalEntry, type JournalEntry } from '../../machines/exchange/journal.ts';
import type { BookSnapshot } from '../../adapters/feed/port.ts';
import { book, client, publishAndWait, type Client, type Response } from './support.ts';

const BTC_BIDS: [string, string][] = [
  ['99.00', '1'],
  ['98.00', '2'],
];
const BTC_ASKS: [string, string][] = [
  ['100.00', '1'],
  ['101.00', '2'],
  ['103.00', '5'],
];
/** BTC book of the suites: asks 1@100, 2@101, 5@103; bids 1@99, 2@98. */
export const btcBook = (ts = Date.now()) => book('BTCUSDT', BTC_BIDS, BTC_ASKS, ts);
/** SOL book of the suites: 100@149.50 / 100@150.00. */
export const solBook = (ts = Date.now()) => book('SOLUSDT', [['149.50', '100']], [['150.00', '100']], ts);

/** A running exchange with its private servers and a few shortcuts. */
export interface ExchangeUnderTest {
  api: Client;
  /** base URL of the API port (`http://127.0.0.1:<port>`) */
  baseUrl: string;
  mgmt: Client;
  /** base URL of the management port (for non-JSON routes such as /actuator/prometheus) */
  mgmtUrl: string;
  /** the ledger's Redis (on a cluster: one of its nodes) */
  redisUrl: string;
  /** the variables that point a process at the ledger's Redis: `REDIS_URL`, or `REDIS_CLUSTER_NODES` */
  redisEnv: Record<string, string>;
  /** a client of the ledger's Redis (a `Cluster` on a cluster) */
  redis: LedgerRedis;
  /** the ledger's key names as this exchange writes them (tagged by account on a cluster) */
  keys: ExchangeKeys;
  /** every key of the ledger's Redis matching `pattern` (on a cluster: of every master) */
  keysMatching(pattern: string): Promise<string[]>;
  nc: NatsConnection;
  /** Opens an account (expects 201) and returns its id. */
  openAccount(name: string, initialCash?: string, feeRate?: string): Promise<string>;
  /** Publishes the BTC and SOL books again with a new time: what orders consumed from the old ones is back (docs/orders.md#consumed-liquidity). */
  freshBooks(): Promise<void>;
  /** Places a market order, with an Idempotency-Key when `key` is given. */
  order(id: string, symbol: string, side: string, qty: string, key?: string): Promise<Response>;
  stop(): Promise<void>;
}

/** A client of one Redis server or of a cluster. */
export type LedgerRedis = Redis | Cluster;

/** Where the exchange under test keeps its ledger. */
export interface LedgerOptions {
  /** one private Redis server (default) or a private Redis Cluster of three masters */
  redis?: 'server' | 'cluster';
}

/** Every key matching `pattern`: of the one server, or of each master of a cluster (test sizes only: KEYS). */
export async function keysMatching(redis: LedgerRedis, pattern: string): Promise<string[]> {
  const nodes = redis instanceof Cluster ? redis.nodes('master') : [redis];
  return (await Promise.all(nodes.map((n) => n.keys(pattern)))).flat();
}

/** A connected client of the private Redis (a cluster client knows its masters once connected). */
async function ledgerClient(url: string, clusterNodes: string | null): Promise<LedgerRedis> {
  const redis = clusterNodes ? new Cluster(clusterNodes.split(',').map((n) => ({ host: n.split(':')[0], port: Number(n.split(':')[1]) }))) : new Redis(url);
  await redis.ping();
  return redis;
}

/** Starts private NATS and Redis, the exchange on them (with `env` added), and publishes the BTC and SOL books. */
export async function startExchangeUnderTest(env: Record<string, string> = {}, options: LedgerOptions = {}): Promise<ExchangeUnderTest> {
  const [nats, redisServer] = await Promise.all([startNatsServer(), startPrivateRedis(options.redis ?? 'server')]);
  const [port, mgmtPort] = [await freePort(), await freePort()];
  const exchange = await startService(
    'exchange',
    {
      EXCHANGE_PORT: String(port),
      EXCHANGE_MGMT_PORT: String(mgmtPort),
      NATS_URL: nats.url,
      ...redisServer.env,
      EXCHANGE_FEED: 'nats',
      LOG_LEVEL: 'warn',
      ...env,
    },
    mgmtPort,
  );
  const api = client(`http://127.0.0.1:${port}`);
  const redis = await ledgerClient(redisServer.url, redisServer.clusterNodes);
  const nc = await connectNats(nats.url, 'exchange-test');
  await publishAndWait(nc, api, btcBook());
  await publishAndWait(nc, api, solBook());
  return {
    api,
    baseUrl: `http://127.0.0.1:${port}`,
    mgmt: client(`http://127.0.0.1:${mgmtPort}`, `http://127.0.0.1:${port}`),
    mgmtUrl: `http://127.0.0.1:${mgmtPort}`,
    redisUrl: redisServer.url,
    redisEnv: redisServer.env,
    redis,
    keys: exchangeKeys('exchange', redisServer.clusterNodes !== null),
    keysMatching: (pattern) => keysMatching(redis, pattern),
    nc,
    async openAccount(name, initialCash = '10000', feeRate) {
      const r = await api.post('/api/v1/accounts', { name, initialCash, ...(feeRate ? { feeRate } : {}) });
      expect(r.status).toBe(201);
      return r.body.id as string;
    },
    order: (id, symbol, side, qty, key) => api.post(`/api/v1/accounts/${id}/orders`, { symbol, side, qty }, key ? { 'Idempotency-Key': key } : {}),
    async freshBooks() {
      await publishAndWait(nc, api, btcBook());
      await publishAndWait(nc, api, solBook());
    },
    async stop() {
      await nc.drain();
      await redis.quit();
      await exchange.stop();
      await Promise.all([nats.stop(), redisServer.stop()]);
    },
  };
}

/**
 * One exchange for the calling suite: started in `beforeAll`, stopped in `afterAll`. The handle
 * can be taken at module level; its members are read from the running exchange when used.
 */
export function exchangeForSuite(env: Record<string, string> = {}, options: LedgerOptions = {}): ExchangeUnderTest {
  let running: ExchangeUnderTest | undefined;
  beforeAll(async () => {
    running = await startExchangeUnderTest(env, options);
  });
  afterAll(async () => {
    await running?.stop();
  });
  const current = (): ExchangeUnderTest => {
    if (running === undefined) throw new Error('the exchange of this suite is not running (used outside a test?)');
    return running;
  };
  return {
    get api() {
      return current().api;
    },
    get baseUrl() {
      return current().baseUrl;
    },
    get mgmt() {
      return current().mgmt;
    },
    get mgmtUrl() {
      return current().mgmtUrl;
    },
    get redisUrl() {
      return current().redisUrl;
    },
    get redisEnv() {
      return current().redisEnv;
    },
    get redis() {
      return current().redis;
    },
    get keys() {
      return current().keys;
    },
    keysMatching: (pattern) => current().keysMatching(pattern),
    get nc() {
      return current().nc;
    },
    openAccount: (name, initialCash, feeRate) => current().openAccount(name, initialCash, feeRate),
    order: (id, symbol, side, qty, key) => current().order(id, symbol, side, qty, key),
    freshBooks: () => current().freshBooks(),
    stop: () => current().stop(),
  };
}

/** An account's journal as the exchange wrote it: the Redis stream (its name tagged on a cluster), read directly and parsed. */
export async function journalIn(redis: LedgerRedis, accountId: string): Promise<JournalEntry[]> {
  const raw = await redis.xrange(exchangeKeys('exchange', redis instanceof Cluster).account(accountId).journal, '-', '+');
  return raw.map(([, f]) => parseJournalEntry(Object.fromEntries(f.flatMap((_, i) => (i % 2 === 0 ? [[f[i], f[i + 1]]] : [])))));
}

/** Private NATS and Redis for the calling suite, on which it starts as many exchange processes as it likes. */
export interface SharedLedger {
  readonly redis: Redis;
  readonly nc: NatsConnection;
  /** The exchange processes started so far, oldest first (a test may stop or kill them). */
  readonly processes: ServiceProcess[];
  /** Starts one more exchange process on the suite's NATS and Redis and waits until it has every book. */
  startExchange(books: BookSnapshot[]): Promise<Client>;
}

/** Registers `beforeAll`/`afterAll` that start and stop the servers of a {@link SharedLedger}. */
export function sharedLedgerForSuite(): SharedLedger {
  let servers: { nats: RunningServer; redisServer: RunningServer; redis: Redis; nc: NatsConnection } | undefined;
  const processes: ServiceProcess[] = [];
  beforeAll(async () => {
    const [nats, redisServer] = await Promise.all([startNatsServer(), startRedisServer()]);
    servers = { nats, redisServer, redis: new Redis(redisServer.url), nc: await connectNats(nats.url, 'exchange-test') };
  });
  afterAll(async () => {
    await servers?.nc.drain();
    await servers?.redis.quit();
    await Promise.all(processes.map((p) => p.stop()));
    await Promise.all([servers?.nats.stop(), servers?.redisServer.stop()]);
  });
  const current = () => {
    if (servers === undefined) throw new Error('the servers of this suite are not running (used outside a test?)');
    return servers;
  };
  return {
    get redis() {
      return current().redis;
    },
    get nc() {
      return current().nc;
    },
    processes,
    async startExchange(books) {
      const { nats, redisServer, nc } = current();
      const [port, mgmtPort] = [await freePort(), await freePort()];
      const env = { EXCHANGE_PORT: String(port), EXCHANGE_MGMT_PORT: String(mgmtPort), NATS_URL: nats.url, REDIS_URL: redisServer.url, LOG_LEVEL: 'warn' };
      processes.push(await startService('exchange', env, mgmtPort));
      const api = client(`http://127.0.0.1:${port}`);
      for (const b of books) await publishAndWait(nc, api, b);
      return api;
    },
  };
}

/** Asserts an error answer: the status, the code, and exactly `{error, message}` (docs/exchange-api.md#errors). */
export function expectError(r: { status: number; body: unknown }, status: number, code: string): void {
  expect({ status: r.status, error: (r.body as { error?: unknown } | undefined)?.error }).toEqual({ status, error: code });
  v.parse(ErrorView, r.body);
}
