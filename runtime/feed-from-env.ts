/**
 * Chooses the market-data sources from the environment (docs/operations.md#processes): NATS when
 * `NATS_URL` is set, the synthetic feeds otherwise; the exchange may also read Binance
 * (`EXCHANGE_FEED`). Bad values stop the process with a ConfigError naming the variable.
 *
 * @example
 *   const prices = priceFeedFromEnv(process.env);
 *   const books = bookFeedFromEnv(process.env);
 */
import * as v from 'valibot';
import { natsUrl, oneOf, readEnv } from './env.ts';
import { log as rootLog, type Logger } from '../kernel/log.ts';
import { BINANCE_WS_URL, BinanceBookFeed } from '../adapters/feed/binance-book.ts';
import { NatsBookFeed, NatsPriceFeed } from '../adapters/feed/nats-feeds.ts';
import type { BookFeed, PriceFeed } from '../adapters/feed/port.ts';
import { SyntheticBookFeed } from '../adapters/feed/synthetic-book.ts';
import { SyntheticPriceFeed } from '../adapters/feed/synthetic-price.ts';
import { SigningPriceFeed, SYNTHETIC_HEARTBEAT } from '../adapters/feed/signing-feed.ts';
import type { PriceSigner } from '../adapters/feed/price-signer.ts';
import { ConfigError } from '../kernel/errors.ts';
import type { DependencyLinks } from './dependency-links.ts';

type Env = Record<string, string | undefined>;

/** Where the exchange takes its books from. */
export const EXCHANGE_FEEDS = ['nats', 'synthetic', 'binance'] as const;

/** `BINANCE_WS_URL`: the stream base, ws:// or wss:// host[:port] without a path. */
export const binanceWsUrl = (): v.GenericSchema<string | undefined, string> =>
  v.optional(v.pipe(v.string(), v.regex(/^wss?:\/\/[^\s/?#]+\/?$/, 'must be ws:// or wss:// host[:port], without path')), BINANCE_WS_URL);

/**
 * The gateway's SOL/USDT source: NATS `market.price.solusdt` when `NATS_URL` is set (signed by
 * whoever publishes them), else synthetic ticks, signed by `signer` when given
 * (docs/decisions.md#signed-prices); a NATS feed's connection is linked in `links`.
 */
export function priceFeedFromEnv(env: Env = process.env, logger: Logger = rootLog, links?: DependencyLinks, signer?: PriceSigner): PriceFeed {
  const { NATS_URL } = readEnv({ NATS_URL: natsUrl() }, env);
  if (NATS_URL) {
    logger.info({ feed: 'nats', url: NATS_URL }, 'SOL/USDT prices from NATS');
    return new NatsPriceFeed({ url: NATS_URL, name: 'price-feed', logger, watch: links?.link('nats') });
  }
  logger.warn({ feed: 'synthetic' }, 'NATS_URL unset: SOL/USDT prices are synthetic');
  const synthetic = new SyntheticPriceFeed({ logger });
  return signer ? new SigningPriceFeed(synthetic, signer, logger, SYNTHETIC_HEARTBEAT) : synthetic;
}

/** The exchange's book source, from `EXCHANGE_FEED` (default nats when `NATS_URL` is set, else synthetic); a NATS feed's connection is linked in `links`. */
export function bookFeedFromEnv(env: Env = process.env, logger: Logger = rootLog, links?: DependencyLinks): BookFeed {
  const { NATS_URL } = readEnv({ NATS_URL: natsUrl() }, env);
  const cfg = readEnv({ EXCHANGE_FEED: oneOf(EXCHANGE_FEEDS, NATS_URL ? 'nats' : 'synthetic'), BINANCE_WS_URL: binanceWsUrl() }, env);
  switch (cfg.EXCHANGE_FEED) {
    case 'nats':
      if (!NATS_URL) throw new ConfigError('NATS_URL', 'is required when EXCHANGE_FEED=nats');
      logger.info({ feed: 'nats', url: NATS_URL }, 'order books from NATS');
      return new NatsBookFeed({ url: NATS_URL, name: 'book-feed', logger, watch: links?.link('nats') });
    case 'binance':
      logger.info({ feed: 'binance', url: cfg.BINANCE_WS_URL }, 'order books from Binance');
      return new BinanceBookFeed({ baseUrl: cfg.BINANCE_WS_URL, logger });
    case 'synthetic':
      logger.warn({ feed: 'synthetic' }, 'order books are synthetic');
      return new SyntheticBookFeed({ logger });
  }
}
