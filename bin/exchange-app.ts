/**
 * Runs the exchange in-process: the API on one port, health on the management port
 * (docs/operations.md#processes), books from any BookFeed, the ledger in any ExchangeStore.
 *
 * @example
 *   const ex = await startExchange({ port: 8081, mgmtPort: 8082, bookMaxAgeMs: 30_000, feed, store });
 *   await ex.stop();
 */
import uws from 'uWebSockets.js';
import type { BookFeed } from '../adapters/feed/port.ts';
import type { ExchangeStore } from '../adapters/store/exchange/port.ts';
import { bookCache } from '../runtime/exchange/book-cache.ts';
import type { ExchangeContext } from '../runtime/exchange/context.ts';
import { createExchangeMetrics, type ExchangeMetrics } from '../runtime/exchange/metrics.ts';
import { createOrderEngine, type OrderEngine } from '../runtime/exchange/engine/engine.ts';
import type { ExchangeEvent } from '../runtime/exchange/events.ts';
import { componentLog, log as rootLog, type Logger } from '../kernel/log.ts';
import { waitFor } from '../runtime/wait-for.ts';
import { assertNativeUws, listenExclusive } from '../server/http/listen.ts';
import type { Router } from '../server/http/router.ts';
import { mountExchangeRoutes, mountManagementRoutes } from '../server/exchange/routes.ts';
import { ASSET_PREFIX, servicePage } from '../server/web/pages.ts';
import { mountSite } from '../server/web/static.ts';
import type { ApiKeyStore } from '../adapters/store/api-keys/port.ts';
import { createMemoryApiKeyStore } from '../adapters/store/api-keys/memory.ts';
import type { CandleStore } from '../adapters/store/candles/port.ts';
import { createMemoryCandleStore } from '../adapters/store/candles/memory.ts';
import { BookSequence } from '../runtime/binance/book-sequence.ts';
import { CandleRecorder } from '../runtime/binance/candles.ts';
import type { TapeStore } from '../adapters/store/tape/port.ts';
import { createMemoryTapeStore } from '../adapters/store/tape/memory.ts';
import { TradeTape } from '../runtime/binance/trade-tape.ts';
import type { BinanceContext } from '../runtime/binance/context.ts';
import { RequestWeights } from '../runtime/binance/request-weight.ts';
import { OrderCounts } from '../runtime/binance/order-counts.ts';
import { mountApiKeyRoutes } from '../server/exchange/api-key-routes.ts';
import { mountFeeRoutes } from '../server/exchange/fee-routes.ts';
import { mountBinanceRoutes } from '../server/binance/routes.ts';
import { mountBinanceStreams, type BinanceStreams } from '../server/binance/streams.ts';
import type { AccountEventLogs } from '../adapters/store/account-events/port.ts';
import { createMemoryAccountEventLogs } from '../adapters/store/account-events/memory.ts';
import { accountEventOfEngine, accountEventsOfCommit, type AccountEventBody } from '../runtime/exchange/account-events.ts';
import { AccountStream } from '../runtime/exchange/account-stream.ts';
import { mountAccountStream } from '../server/exchange/events-ws.ts';
import { mountWsApi, type WsApi } from '../server/binance/ws-api/ws-api.ts';
import { bookFeedFromEnv } from '../runtime/feed-from-env.ts';
import { DependencyLinks } from '../runtime/dependency-links.ts';
import { natsExchangeEvents } from '../runtime/exchange/nats-events.ts';
import { publishingStore, relayedStore } from '../runtime/exchange/published-store.ts';
import { LedgerEventsRelay } from '../runtime/exchange/events-relay.ts';
import { exchangeEnv } from './exchange-env.ts';
import { accountEventLogsOf, binanceStoresOf, eventStreamOf, exchangeStoreOf, tapeStoreOf } from './exchange-stores.ts';
import { setTimeout as sleep } from 'node:timers/promises';

/** What an in-process exchange needs. */
export interface ExchangeOptions {
  /** API port (0 = any free port) */
  port: number;
  /** management port with the health route (0 = any free port) */
  mgmtPort: number;
  /** books older than this are never used (docs/exchange-api.md#symbols: 30 s) */
  bookMaxAgeMs: number;
  feed: BookFeed;
  store: ExchangeStore;
  host?: string;
  logger?: Logger;
  /** clock of book freshness and timestamps (tests) */
  now?: () => number;
  /** metrics registry and instruments (default: a fresh one) */
  metrics?: ExchangeMetrics;
  /** the exchange's Redis and NATS connections, for exchange_dependency_up (with the default metrics) */
  dependencies?: DependencyLinks;
  /** API keys of the Binance-shaped surface (default: in memory) */
  apiKeys?: ApiKeyStore;
  /** one-minute candles for klines (default: in memory) */
  candles?: CandleStore;
  /** request weight per address and minute on /api/v3 (docs/operations.md#processes: BINANCE_WEIGHT_LIMIT) [6000] */
  weightLimit?: number;
  /** where the order engine's events go besides its listeners (NATS) */
  publish?: (e: ExchangeEvent) => void;
  /** the per-account event logs of the account streams (docs/exchange-api.md#account-stream; default: in memory) */
  accountEvents?: AccountEventLogs<AccountEventBody>;
  /** the venue's public trade tape (docs/exchange-api.md#binance-trades; default: in memory); closed with the exchange */
  tape?: TapeStore;
}

/** A started exchange: its actual ports and a stop. */
export interface RunningExchange {
  port: number;
  mgmtPort: number;
  context: ExchangeContext;
  /** the Binance-shaped surface's context (docs/exchange-api.md#binance-spot-api) */
  binance: BinanceContext;
  /** the order engine (docs/orders.md), for the surfaces that place and cancel orders on it */
  engine: OrderEngine;
  /** the account events with their per-account seq (docs/exchange-api.md#account-stream) */
  accountStream: AccountStream;
  /** Stops listening, stops the feed and closes the store. */
  stop(): Promise<void>;
}

/**
 * Starts the exchange; resolves once both ports listen and the feed is started. A ledger store
 * that does not answer yet (Redis starting) is waited for, saying so in the log.
 */
export async function startExchange(options: ExchangeOptions): Promise<RunningExchange> {
  assertNativeUws();
  const log = componentLog(options.logger ?? rootLog, 'exchange');
  const now = options.now ?? Date.now;
  const books = bookCache(options.bookMaxAgeMs, now);
  const metrics = options.metrics ?? createExchangeMetrics(now, options.dependencies);
  const accountLogs = options.accountEvents ?? createMemoryAccountEventLogs<AccountEventBody>();
  const accountStream = new AccountStream(accountLogs, log);
  let wsApi: WsApi | null = null;
  const rawKeys = options.apiKeys ?? createMemoryApiKeyStore();
  // a deleted key ends its user data streams (docs/exchange-api.md#binance-user-data-stream)
  const keys: ApiKeyStore = {
    ...rawKeys,
    async delete(accountId, apiKey) {
      const gone = await rawKeys.delete(accountId, apiKey);
      if (gone) wsApi?.terminate([apiKey]);
      return gone;
    },
  };
  const timed = options.store.kind === 'redis' ? metrics.timedRedisStore(options.store) : options.store;
  const tape = new TradeTape(options.tape ?? createMemoryTapeStore(), log);
  // an account's API keys and event log go with it (docs/exchange-api.md#api-keys); changes outside the engine reach the account streams
  const store: ExchangeStore = {
    ...timed,
    async commit(id, expectedVersion, change) {
      const out = await timed.commit(id, expectedVersion, change);
      // every fill goes on the public tape before the order is answered (docs/exchange-api.md#binance-trades)
      if (out === 'committed') await tape.record(change.trades ?? [], change.order);
      if (out === 'committed' && accountStream.wants(id)) accountStream.add(accountEventsOfCommit(id, change, now()));
      return out;
    },
    async deleteAccount(id) {
      const held = await rawKeys.listByAccount(id);
      const gone = await timed.deleteAccount(id);
      if (gone) {
        await rawKeys.deleteAccount(id);
        wsApi?.terminate(held.map((k) => k.apiKey));
        await accountStream.forget(id);
      }
      return gone;
    },
  };
  const context: ExchangeContext = { store, books, now: () => new Date(now()), log };
  const sequence = new BookSequence();
  const candleStore = options.candles ?? createMemoryCandleStore();
  const engine = createOrderEngine(context, options.publish ? { publish: options.publish } : {});
  const binanceContext: BinanceContext = {
    exchange: context,
    keys,
    books: sequence,
    candles: new CandleRecorder(candleStore, log),
    tape,
    weights: new RequestWeights(options.weightLimit ?? 6_000, now),
    engine,
    orderCounts: new OrderCounts(now),
  };
  tape.onTrade((t) => binanceContext.candles.addTrade(t));
  engine.onEvent((e, ids) => {
    const event = accountStream.wants(e.accountId) ? accountEventOfEngine(e, ids) : null;
    if (event) accountStream.add([event]);
  });
  let matching = false;
  const unsubscribe = options.feed.onBook((b) => {
    // a newer book: what was consumed from the one before comes back, and resting orders it reaches fill (docs/orders.md)
    if (books.put(b) && matching) engine.onBook(b);
    metrics.bookArrived(b.symbol, b.ts);
    if (sequence.accept(b)) binanceContext.candles.add(b);
  });
  let streams: BinanceStreams | null = null;
  let stopAccountStream = () => undefined as unknown;
  const sockets: uws.us_listen_socket[] = [];
  let api: Router | null = null;
  const stop = async () => {
    for (const s of sockets.splice(0)) uws.us_listen_socket_close(s);
    streams?.close();
    wsApi?.close();
    stopAccountStream();
    // Requests already accepted finish (their commits are atomic either way) before the store closes.
    await api?.drained(5_000);
    unsubscribe();
    await candleStore.close();
    await keys.close();
    // fills already decided land (bounded) before the store closes; a fill that does not is simply not made
    await Promise.race([engine.settled(), sleep(5_000, undefined, { ref: false })]);
    engine.stop();
    await tape.stop();
    await tape.store.close();
    await Promise.race([accountStream.settled(), sleep(2_000, undefined, { ref: false })]);
    accountStream.stop();
    await accountLogs.close();
    await options.feed.stop().catch((err: unknown) => log.error({ err }, 'feed did not stop cleanly'));
    await options.store.close();
  };
  try {
    await options.feed.start();
    await waitFor('the ledger store', () => options.store.ping(), log, 'start Redis, or fix REDIS_URL');
    await accountStream.start();
    await tape.start();
    // resting orders of the store go on resting here (docs/orders.md#restart)
    await engine.boot();
    matching = true;

    const host = options.host ?? '127.0.0.1';
    const app = uws.App();
    streams = mountBinanceStreams(app, binanceContext);
    wsApi = mountWsApi(app, binanceContext, accountStream);
    stopAccountStream = mountAccountStream(app, context, accountStream);
    api = mountExchangeRoutes(app, context, metrics);
    mountApiKeyRoutes(api, context, keys);
    mountFeeRoutes(api, context);
    mountBinanceRoutes(api, binanceContext);
    mountSite(
      app,
      servicePage('exchange', { [`${ASSET_PREFIX}/config.json`]: () => ({ service: 'exchange', bookMaxAgeMs: options.bookMaxAgeMs }) }),
      ASSET_PREFIX,
    );
    const mgmt = uws.App();
    mountManagementRoutes(mgmt, store, log, undefined, metrics.registry);
    sockets.push(await listenExclusive(app, host, options.port));
    sockets.push(await listenExclusive(mgmt, host, options.mgmtPort));
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
  const [port, mgmtPort] = sockets.map((s) => uws.us_socket_local_port(s)) as [number, number];
  log.info({ port, mgmtPort, bookMaxAgeMs: options.bookMaxAgeMs }, 'exchange listening');
  return {
    port,
    mgmtPort,
    context,
    binance: binanceContext,
    engine,
    accountStream,
    async stop() {
      await stop();
      log.info('exchange stopped');
    },
  };
}

/** Starts the exchange from the environment. */
export async function startExchangeFromEnv(source: Record<string, string | undefined> = process.env): Promise<RunningExchange> {
  const env = exchangeEnv(source);
  // every Redis and NATS connection of the exchange, for exchange_dependency_up (docs/operations.md#metrics)
  const dependencies = new DependencyLinks();
  const feed = bookFeedFromEnv(source, rootLog, dependencies);
  const ledger = exchangeStoreOf(env, dependencies);
  // with NATS, every committed journal entry and fill is also announced on exchange.<accountId>.<kind>
  const events = env.NATS_URL ? natsExchangeEvents(env.NATS_URL, rootLog, eventStreamOf(env), dependencies.link('nats')) : null;
  // from the ledger's outbox where it has one (Redis), at once and best-effort otherwise (docs/operations.md#exchange-events-outbox)
  const relay =
    events && ledger.outbox
      ? new LedgerEventsRelay({
          outbox: ledger.outbox,
          accountIds: () => ledger.listAccountIds(),
          publish: (e, id) => events.publishDurable(e, id),
          log: rootLog,
        })
      : null;
  const store: ExchangeStore = events
    ? {
        ...(relay ? relayedStore(ledger, relay) : publishingStore(ledger, (e) => events.publish(e), rootLog)),
        close: async () => {
          await relay?.stop();
          await events.close();
          await ledger.close();
        },
      }
    : ledger;
  relay?.start();
  try {
    const { apiKeys, candles } = await binanceStoresOf(env, dependencies);
    return await startExchange({
      port: env.EXCHANGE_PORT,
      mgmtPort: env.EXCHANGE_MGMT_PORT,
      host: env.HOST,
      bookMaxAgeMs: env.BOOK_MAX_AGE_MS,
      feed,
      store,
      apiKeys,
      candles,
      weightLimit: env.BINANCE_WEIGHT_LIMIT,
      accountEvents: accountEventLogsOf(env, dependencies),
      tape: tapeStoreOf(env, dependencies),
      dependencies,
      ...(events ? { publish: (e) => events.publish(e) } : {}),
    });
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
}
