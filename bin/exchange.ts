/**
 * `npm run exchange`: the paper-trading exchange as one process, configured by env
 * (docs/operations.md#processes). REDIS_URL unset -> the ledger in `DATA_DIR/exchange/ledger.log`
 * (held by this process alone); EXCHANGE_FEED nats (default when NATS_URL is set) | synthetic
 * (default otherwise) | binance.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bookFeedFromEnv } from '../runtime/feed-from-env.ts';
import { lockDataDir } from '../adapters/store/file/data-dir-lock.ts';
import { openFileExchangeStore } from '../adapters/store/exchange/file.ts';
import type { ExchangeStore } from '../adapters/store/exchange/port.ts';
import { redactUrl } from '../adapters/store/redis/client.ts';
import { createRedisExchangeStore } from '../adapters/store/exchange/redis.ts';
import { natsExchangeEvents, type ExchangeEventStream } from '../runtime/exchange/nats-events.ts';
import { publishingStore, relayedStore } from '../runtime/exchange/published-store.ts';
import { LedgerEventsRelay } from '../runtime/exchange/events-relay.ts';
import { log } from '../kernel/log.ts';
import { startExchange, type RunningExchange } from './exchange-app.ts';
import { runService } from './process.ts';
import { openRedis } from '../adapters/store/redis/client.ts';
import { openFileApiKeyStore } from '../adapters/store/api-keys/file.ts';
import type { ApiKeyStore } from '../adapters/store/api-keys/port.ts';
import { createRedisApiKeyStore } from '../adapters/store/api-keys/redis.ts';
import { resolveApiKeyServerKey } from '../adapters/store/api-keys/server-key.ts';
import { openFileCandleStore } from '../adapters/store/candles/file.ts';
import type { CandleStore } from '../adapters/store/candles/port.ts';
import { createRedisCandleStore } from '../adapters/store/candles/redis.ts';
import { exchangeEnv, exchangeEnvFields } from './exchange-env.ts';
import * as v from 'valibot';
import type { AccountEventLogs } from '../adapters/store/account-events/port.ts';
import { createMemoryAccountEventLogs } from '../adapters/store/account-events/memory.ts';
import { createRedisAccountEventLogs } from '../adapters/store/account-events/redis.ts';
import { AccountEventBodySchema, type AccountEventBody } from '../runtime/exchange/account-events.ts';

/** Starts the exchange in-process (used by `npm start`). */
export { startExchange, exchangeEnv, exchangeEnvFields };
export type { ExchangeOptions, RunningExchange } from './exchange-app.ts';

/** Picks the ledger store: Redis when REDIS_URL is set, else the journal file in DATA_DIR (locked for this process). */
export function exchangeStoreOf(env: { REDIS_URL?: string | undefined; DATA_DIR: string }): ExchangeStore {
  if (env.REDIS_URL) {
    log.info({ redis: redactUrl(env.REDIS_URL) }, 'exchange ledger in Redis');
    return createRedisExchangeStore(env.REDIS_URL);
  }
  const lock = lockDataDir(env.DATA_DIR, 'exchange');
  const path = join(env.DATA_DIR, 'exchange', 'ledger.log');
  const store = openFileExchangeStore(path);
  log.info({ file: path, lines: store.lines() }, 'REDIS_URL unset: the exchange ledger is kept in DATA_DIR');
  return {
    ...store,
    async close() {
      await store.close();
      lock.release();
    },
  };
}

/** The Binance surface's stores: API keys and candles in Redis when REDIS_URL is set, else files in DATA_DIR/exchange. */
export async function binanceStoresOf(env: {
  REDIS_URL?: string | undefined;
  DATA_DIR: string;
  EXCHANGE_API_KEY_SECRET?: string | undefined;
}): Promise<{ apiKeys: ApiKeyStore; candles: CandleStore }> {
  const sealing = resolveApiKeyServerKey(env.EXCHANGE_API_KEY_SECRET, env.DATA_DIR);
  log.info({ source: sealing.source, file: sealing.file }, 'api key secrets are sealed at rest');
  if (env.REDIS_URL) {
    const redis = openRedis(env.REDIS_URL, { log, name: 'exchange-binance' });
    const apiKeys = createRedisApiKeyStore(redis, sealing.key);
    return { apiKeys: { ...apiKeys, close: async () => void redis.disconnect() }, candles: createRedisCandleStore(redis) };
  }
  const dir = join(env.DATA_DIR, 'exchange');
  return { apiKeys: await openFileApiKeyStore(join(dir, 'api-keys.json'), sealing.key), candles: openFileCandleStore(join(dir, 'candles.log')) };
}

/** The account streams' logs (docs/exchange-api.md#account-stream): in Redis when REDIS_URL is set (kept across restarts), else in memory. */
export function accountEventLogsOf(env: { REDIS_URL?: string | undefined }): AccountEventLogs<AccountEventBody> {
  if (!env.REDIS_URL) return createMemoryAccountEventLogs();
  const redis = openRedis(env.REDIS_URL, { log, name: 'exchange-account-events' });
  return createRedisAccountEventLogs(redis, { owned: true, parse: (raw) => v.parse(AccountEventBodySchema, raw) });
}

/** The JetStream stream of the ledger's events, from the environment. */
export function eventStreamOf(env: ReturnType<typeof exchangeEnv>): ExchangeEventStream {
  return {
    name: env.EXCHANGE_EVENTS_STREAM,
    subjects: env.EXCHANGE_EVENTS_SUBJECTS.split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    replicas: env.EXCHANGE_EVENTS_REPLICAS,
    duplicateWindowMs: env.EXCHANGE_EVENTS_DUPLICATE_WINDOW_MS,
  };
}

/** Starts the exchange from the environment. */
export async function startExchangeFromEnv(source: Record<string, string | undefined> = process.env): Promise<RunningExchange> {
  const env = exchangeEnv(source);
  const feed = bookFeedFromEnv(source);
  const ledger = exchangeStoreOf(env);
  // with NATS, every committed journal entry and fill is also announced on exchange.<accountId>.<kind>
  const events = env.NATS_URL ? natsExchangeEvents(env.NATS_URL, log, eventStreamOf(env)) : null;
  // from the ledger's outbox where it has one (Redis), at once and best-effort otherwise (docs/operations.md#exchange-events-outbox)
  const relay =
    events && ledger.outbox
      ? new LedgerEventsRelay({ outbox: ledger.outbox, accountIds: () => ledger.listAccountIds(), publish: (e, id) => events.publishDurable(e, id), log })
      : null;
  const store: ExchangeStore = events
    ? {
        ...(relay ? relayedStore(ledger, relay) : publishingStore(ledger, (e) => events.publish(e), log)),
        close: async () => {
          await relay?.stop();
          await events.close();
          await ledger.close();
        },
      }
    : ledger;
  relay?.start();
  try {
    const { apiKeys, candles } = await binanceStoresOf(env);
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
      accountEvents: accountEventLogsOf(env),
      ...(events ? { publish: (e) => events.publish(e) } : {}),
    });
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runService(
    {
      name: 'exchange',
      command: 'npm run exchange',
      purpose: 'The paper-trading exchange: USDT accounts, market orders on live BTC/ETH/SOL books, PnL, equity curve, journal.',
      env: exchangeEnvFields,
    },
    () => startExchangeFromEnv(),
  );
}
