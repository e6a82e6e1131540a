/** Exchange configuration, validated once at boot (docs/operations.md#processes); `--help` prints it. */
import { EXCHANGE_FEEDS, binanceWsUrl } from '../runtime/feed-from-env.ts';
import { redisConfigOf, redisEnvFields } from './redis-env.ts';
import { commonEnv, describe, integer, natsUrl, optionalOneOf, optionalText, port, readEnv, text, url } from '../runtime/env.ts';

/** The exchange's variables, each with its default and meaning (`--help`). */
export const exchangeEnvFields = {
  EXCHANGE_PORT: describe('REST API port (/api/v1)', port(8081)),
  EXCHANGE_MGMT_PORT: describe('management port (GET /actuator/health, GET /actuator/prometheus)', port(8082)),
  HOST: describe('listen address (0.0.0.0 in a container)', text('127.0.0.1')),
  BOOK_MAX_AGE_MS: describe('an order book older than this is never used, ms', integer(30_000, 1)),
  EXCHANGE_FEED: describe('order books from nats|synthetic|binance (unset: nats when NATS_URL is set, else synthetic)', optionalOneOf(EXCHANGE_FEEDS)),
  NATS_URL: describe('NATS for market.book.<SYMBOL>; journal entries and fills are published on exchange.<accountId>.journal|fill', natsUrl()),
  EXCHANGE_EVENTS_STREAM: describe(
    'with NATS and Redis: the JetStream stream journal entries and fills are relayed to (created when missing)',
    text('EXCHANGE_EVENTS'),
  ),
  EXCHANGE_EVENTS_SUBJECTS: describe('subjects of a stream created here, comma-separated', text('exchange.*.journal,exchange.*.fill')),
  EXCHANGE_EVENTS_REPLICAS: describe('replicas of a stream created here (a NATS cluster: 3)', integer(1, 1)),
  EXCHANGE_EVENTS_DUPLICATE_WINDOW_MS: describe(
    'how long the stream remembers an event id (a re-publish after a crash within it is stored once), ms',
    integer(120_000, 1_000),
  ),
  BINANCE_WS_URL: describe('Binance stream base URL (EXCHANGE_FEED=binance)', binanceWsUrl()),
  REDIS_URL: describe('Redis for the ledger (unset: a journal file in DATA_DIR)', url(['redis:', 'rediss:'], 'redis://127.0.0.1:6379')),
  ...redisEnvFields,
  DATA_DIR: describe('where the embedded ledger file lives', text('.data')),
  BINANCE_WEIGHT_LIMIT: describe('request weight per client address and minute on /api/v3 before 429 (-1003)', integer(6_000, 1)),
  EXCHANGE_API_KEY_SECRET: describe('seals HMAC API key secrets at rest (unset: generated into DATA_DIR/exchange/api-keys.secret)', optionalText()),
  ...commonEnv,
};

/** Reads the exchange's own variables; throws ConfigError naming a bad one. `redis`: where its Redis is (REDIS_URL or REDIS_SENTINELS), null for none. */
export function exchangeEnv(source: Record<string, string | undefined> = process.env) {
  const env = readEnv(exchangeEnvFields, source);
  return { ...env, redis: redisConfigOf(env) };
}
