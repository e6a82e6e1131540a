/**
 * Runs the exchange in-process: the API on one port, health on the management port
 * (design: "Run contract"), books from any BookFeed, the ledger in any ExchangeStore.
 *
 * @example
 *   const ex = await startExchange({ port: 8081, mgmtPort: 8082, bookMaxAgeMs: 30_000, feed, store });
 *   await ex.stop();
 */
import uws from 'uWebSockets.js';
import type { BookFeed } from '../../adapters/feed/port.ts';
import type { ExchangeStore } from '../../adapters/store/exchange-port.ts';
import { bookCache } from '../../runtime/exchange/book-cache.ts';
import type { ExchangeContext } from '../../runtime/exchange/context.ts';
import { resumeUnfinishedOrders } from '../../runtime/exchange/recovery.ts';
import { componentLog, log as rootLog, type Logger } from '../../runtime/log.ts';
import { assertNativeUws } from '../http.ts';
import { InFlight } from './handle.ts';
import { mountExchangeRoutes, mountManagementRoutes } from './routes.ts';

/** What an in-process exchange needs. */
export interface ExchangeOptions {
  /** API port (0 = any free port) */
  port: number;
  /** management port with the health route (0 = any free port) */
  mgmtPort: number;
  /** books older than this are never used (spec §8: 30 s) */
  bookMaxAgeMs: number;
  feed: BookFeed;
  store: ExchangeStore;
  host?: string;
  logger?: Logger;
  /** clock of book freshness and timestamps (tests) */
  now?: () => number;
}

/** A started exchange: its actual ports and a stop. */
export interface RunningExchange {
  port: number;
  mgmtPort: number;
  context: ExchangeContext;
  /** Stops listening, stops the feed and closes the store. */
  stop(): Promise<void>;
}

function listen(app: uws.TemplatedApp, host: string, port: number): Promise<uws.us_listen_socket> {
  return new Promise((resolve, reject) => {
    app.listen(host, port, (token) => (token ? resolve(token) : reject(new Error(`cannot listen on ${host}:${port}`))));
  });
}

/** Starts the exchange; resolves once both ports listen and the feed is started. */
export async function startExchange(options: ExchangeOptions): Promise<RunningExchange> {
  assertNativeUws();
  const log = componentLog(options.logger ?? rootLog, 'exchange');
  const now = options.now ?? Date.now;
  const books = bookCache(options.bookMaxAgeMs, now);
  const context: ExchangeContext = { store: options.store, books, now: () => new Date(now()), log };
  const unsubscribe = options.feed.onBook((b) => books.put(b));
  await options.feed.start();
  await resumeUnfinishedOrders(context);

  const host = options.host ?? '0.0.0.0';
  const app = uws.App();
  const inFlight = new InFlight();
  mountExchangeRoutes(app, context, inFlight);
  const mgmt = uws.App();
  mountManagementRoutes(mgmt);
  const apiToken = await listen(app, host, options.port);
  const mgmtToken = await listen(mgmt, host, options.mgmtPort);
  const port = uws.us_socket_local_port(apiToken);
  const mgmtPort = uws.us_socket_local_port(mgmtToken);
  log.info({ port, mgmtPort, bookMaxAgeMs: options.bookMaxAgeMs }, 'exchange listening');

  return {
    port,
    mgmtPort,
    context,
    async stop() {
      uws.us_listen_socket_close(apiToken);
      uws.us_listen_socket_close(mgmtToken);
      // Requests already accepted finish (their commits are atomic either way) before the store closes.
      await inFlight.drained(5_000);
      unsubscribe();
      await options.feed.stop();
      await options.store.close();
      log.info('exchange stopped');
    },
  };
}
