/**
 * Which stores the exchange runs on (docs/operations.md#processes), chosen from its environment:
 * Redis (REDIS_URL, REDIS_SENTINELS or REDIS_CLUSTER_NODES) shared by every exchange process on
 * it, else files in DATA_DIR held by this process alone (the ledger, API keys, candles) and
 * memory (the account streams' logs, the trade tape). The gateway's counterpart is
 * `gateway-stores.ts`.
 */
import { join } from 'node:path';
import * as v from 'valibot';
import { lockDataDir } from '../adapters/store/file/data-dir-lock.ts';
import { openFileExchangeStore } from '../adapters/store/exchange/file.ts';
import type { ExchangeStore } from '../adapters/store/exchange/port.ts';
import { createRedisExchangeStore } from '../adapters/store/exchange/redis.ts';
import { isClusterTarget, targetText } from '../adapters/store/redis/target.ts';
import { openRedis } from '../adapters/store/redis/client.ts';
import { apiKeyPrefix } from '../adapters/store/redis/cluster.ts';
import { openFileApiKeyStore } from '../adapters/store/api-keys/file.ts';
import type { ApiKeyStore } from '../adapters/store/api-keys/port.ts';
import { createRedisApiKeyStore } from '../adapters/store/api-keys/redis.ts';
import { resolveApiKeyServerKey } from '../adapters/store/api-keys/server-key.ts';
import { openFileCandleStore } from '../adapters/store/candles/file.ts';
import type { CandleStore } from '../adapters/store/candles/port.ts';
import { createRedisCandleStore } from '../adapters/store/candles/redis.ts';
import type { AccountEventLogs } from '../adapters/store/account-events/port.ts';
import { createMemoryAccountEventLogs } from '../adapters/store/account-events/memory.ts';
import { createRedisAccountEventLogs } from '../adapters/store/account-events/redis.ts';
import type { TapeStore } from '../adapters/store/tape/port.ts';
import { createMemoryTapeStore } from '../adapters/store/tape/memory.ts';
import { createRedisTapeStore } from '../adapters/store/tape/redis.ts';
import { log } from '../kernel/log.ts';
import type { DependencyLinks } from '../runtime/dependency-links.ts';
import { AccountEventBodySchema, type AccountEventBody } from '../runtime/exchange/account-events.ts';
import type { ExchangeEventStream } from '../runtime/exchange/nats-events.ts';
import type { exchangeEnv } from './exchange-env.ts';
import type { RedisConfig } from './redis-env.ts';

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
