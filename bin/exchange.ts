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
import { isClusterTarget, targetText } from '../adapters/store/redis/target.ts';
import type { RedisConfig } from './redis-env.ts';
import { createRedisExchangeStore } from '../adapters/store/exchange/redis.ts';
import { DependencyLinks } from '../runtime/dependency-links.ts';
import { natsExchangeEvents, type ExchangeEventStream } from '../runtime/exchange/nats-events.ts';
import { publishingStore, relayedStore } from '../runtime/exchange/published-store.ts';
import { LedgerEventsRelay } from '../runtime/exchange/events-relay.ts';
import { log } from '../kernel/log.ts';
import { startExchange, type RunningExchange } from './exchange-app.ts';
import { runService } from './process.ts';
import { openRedis } from '../adapters/store/redis/client.ts';
import { apiKeyPrefix } from '../adapters/store/redis/cluster.ts';
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
import type { TapeStore } from '../adapters/store/tape/port.ts';
import { createMemoryTapeStore } from '../adapters/store/tape/memory.ts';
import { createRedisTapeStore } from '../adapters/store/tape/redis.ts';

/** Starts the exchange in-process (used by `npm start`). */
export { startExchange, exchangeEnv, exchangeEnvFields };
export type { ExchangeOptions, RunningExchange } from './exchange-app.ts';

/** Picks the ledger store: Redis when REDIS_URL, REDIS_SENTINELS or REDIS_CLUSTER_NODES is set, else the journal file in DATA_DIR (locked for this process); its connection is linked in `links`. */
export function exchangeStoreOf(env: { redis: RedisConfig; DATA_DIR: string }, links?: DependencyLinks): ExchangeStore {
  const { target, durability } = env.redis;
  if (target) {
    log.info({ redis: targetText(target), minReplicas: durability.minReplicas }, 'exchange ledger in Redis');
    return createRedisExchangeStore(target, 'exchange', log, durability, links?.link('redis'));
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

/** The Binance surface's stores: API keys and candles in Redis when configured, else files in DATA_DIR/exchange. */
export async function binanceStoresOf(
  env: {
    redis: RedisConfig;
    DATA_DIR: string;
    EXCHANGE_API_KEY_SECRET?: string | undefined;
  },
  links?: DependencyLinks,
): Promise<{ apiKeys: ApiKeyStore; candles: CandleStore }> {
  const sealing = resolveApiKeyServerKey(env.EXCHANGE_API_KEY_SECRET, env.DATA_DIR);
  log.info({ source: sealing.source, file: sealing.file }, 'api key secrets are sealed at rest');
  if (env.redis.target) {
    const redis = openRedis(env.redis.target, { log, name: 'exchange-binance', watch: links?.link('redis') });
    const apiKeys = createRedisApiKeyStore(redis, sealing.key, apiKeyPrefix(env.redis.target));
    return { apiKeys: { ...apiKeys, close: async () => void redis.disconnect() }, candles: createRedisCandleStore(redis) };
  }
  const dir = join(env.DATA_DIR, 'exchange');
  return { apiKeys: await openFileApiKeyStore(join(dir, 'api-keys.json'), sealing.key), candles: openFileCandleStore(join(dir, 'candles.log')) };
}

/** The account streams' logs (docs/exchange-api.md#account-stream): in Redis when configured (kept across restarts), else in memory. */
export function accountEventLogsOf(env: { redis: RedisConfig }, links?: DependencyLinks): AccountEventLogs<AccountEventBody> {
  if (!env.redis.target) return createMemoryAccountEventLogs();
  const redis = openRedis(env.redis.target, { log, name: 'exchange-account-events', watch: links?.link('redis') });
  return createRedisAccountEventLogs(redis, { owned: true, cluster: isClusterTarget(env.redis.target), parse: (raw) => v.parse(AccountEventBodySchema, raw) });
}

/** The public trade tape (docs/exchange-api.md#binance-trades): in Redis when configured (shared by the processes on it, kept across restarts), else in memory. */
export function tapeStoreOf(env: { redis: RedisConfig }, links?: DependencyLinks): TapeStore {
  if (!env.redis.target) return createMemoryTapeStore();
  const redis = openRedis(env.redis.target, { log, name: 'exchange-tape', watch: links?.link('redis') });
  return createRedisTapeStore(redis, { owned: true, cluster: isClusterTarget(env.redis.target) });
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
  // every Redis and NATS connection of the exchange, for exchange_dependency_up (docs/operations.md#metrics)
  const dependencies = new DependencyLinks();
  const feed = bookFeedFromEnv(source, log, dependencies);
  const ledger = exchangeStoreOf(env, dependencies);
  // with NATS, every committed journal entry and fill is also announced on exchange.<accountId>.<kind>
  const events = env.NATS_URL ? natsExchangeEvents(env.NATS_URL, log, eventStreamOf(env), dependencies.link('nats')) : null;
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
