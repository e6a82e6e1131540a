/**
 * `npm run exchange`: the paper-trading exchange as one process, configured by env
 * (design: "Run contract"). REDIS_URL unset -> in-memory ledger (with a warning);
 * EXCHANGE_FEED nats (default when NATS_URL is set) | synthetic (default otherwise) | binance.
 */
import { pathToFileURL } from 'node:url';
import { bookFeedFromEnv } from '../adapters/feed/from-env.ts';
import { memoryExchangeStore } from '../adapters/store/exchange-memory.ts';
import type { ExchangeStore } from '../adapters/store/exchange-port.ts';
import { redisExchangeStore } from '../adapters/store/exchange-redis.ts';
import { integer, optionalText, port, readEnv } from '../runtime/env.ts';
import { log } from '../runtime/log.ts';
import { startExchange, type RunningExchange } from '../server/exchange/app.ts';

/** Starts the exchange in-process (used by `npm start`). */
export { startExchange };
export type { ExchangeOptions, RunningExchange } from '../server/exchange/app.ts';

/** Reads the exchange's own variables; throws ConfigError naming a bad one. */
export function exchangeEnv(source: Record<string, string | undefined> = process.env) {
  return readEnv(
    {
      EXCHANGE_PORT: port(8081),
      EXCHANGE_MGMT_PORT: port(8082),
      BOOK_MAX_AGE_MS: integer(30_000, 1),
      REDIS_URL: optionalText(),
    },
    source,
  );
}

/** Picks the ledger store: Redis when REDIS_URL is set, else in memory (lost on exit). */
export function exchangeStoreOf(redisUrl: string | undefined): ExchangeStore {
  if (redisUrl) return redisExchangeStore(redisUrl);
  log.warn('REDIS_URL is not set: the exchange ledger is kept in memory and is lost when the process exits');
  return memoryExchangeStore();
}

/** Starts the exchange from the environment and stops it cleanly on SIGINT/SIGTERM. */
export async function main(source: Record<string, string | undefined> = process.env): Promise<RunningExchange> {
  const env = exchangeEnv(source);
  const feed = bookFeedFromEnv(source);
  const exchange = await startExchange({
    port: env.EXCHANGE_PORT,
    mgmtPort: env.EXCHANGE_MGMT_PORT,
    bookMaxAgeMs: env.BOOK_MAX_AGE_MS,
    feed,
    store: exchangeStoreOf(env.REDIS_URL),
  });
  const shutdown = (signal: string) => {
    log.info({ signal }, 'shutting down');
    exchange.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  return exchange;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    log.fatal({ err }, 'exchange failed to start');
    process.exit(1);
  });
}
