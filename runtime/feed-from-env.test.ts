import { pino } from 'pino';
import { describe, expect, it } from 'vitest';

import { BinanceBookFeed } from '../adapters/feed/binance-book.ts';
import { bookFeedFromEnv, priceFeedFromEnv } from './feed-from-env.ts';
import { NatsBookFeed, NatsPriceFeed } from '../adapters/feed/nats-feeds.ts';
import { SyntheticBookFeed } from '../adapters/feed/synthetic-book.ts';
import { SyntheticPriceFeed } from '../adapters/feed/synthetic-price.ts';
import { ConfigError } from '../kernel/errors.ts';

const quiet = pino({ level: 'silent' });
const NATS_URL = 'nats://127.0.0.1:4222';

describe('priceFeedFromEnv', () => {
  it('is synthetic when NATS_URL is unset or empty', () => {
    expect(priceFeedFromEnv({}, quiet)).toBeInstanceOf(SyntheticPriceFeed);
    expect(priceFeedFromEnv({ NATS_URL: '' }, quiet)).toBeInstanceOf(SyntheticPriceFeed);
  });

  it('reads NATS when NATS_URL is set', () => {
    expect(priceFeedFromEnv({ NATS_URL }, quiet)).toBeInstanceOf(NatsPriceFeed);
  });

  it('names NATS_URL when it is not a NATS URL', () => {
    expect(() => priceFeedFromEnv({ NATS_URL: 'http://example.com' }, quiet)).toThrowError(/^NATS_URL: /);
  });
});

describe('bookFeedFromEnv', () => {
  it('defaults to synthetic without NATS_URL and to NATS with it', () => {
    expect(bookFeedFromEnv({}, quiet)).toBeInstanceOf(SyntheticBookFeed);
    expect(bookFeedFromEnv({ NATS_URL }, quiet)).toBeInstanceOf(NatsBookFeed);
  });

  it('follows EXCHANGE_FEED', () => {
    expect(bookFeedFromEnv({ NATS_URL, EXCHANGE_FEED: 'synthetic' }, quiet)).toBeInstanceOf(SyntheticBookFeed);
    expect(bookFeedFromEnv({ NATS_URL, EXCHANGE_FEED: 'nats' }, quiet)).toBeInstanceOf(NatsBookFeed);
    const binance = bookFeedFromEnv({ EXCHANGE_FEED: 'binance' }, quiet);
    expect(binance).toBeInstanceOf(BinanceBookFeed);
    expect((binance as BinanceBookFeed).url).toBe(
      'wss://stream.binance.com:9443/stream?streams=btcusdt@depth20@100ms/ethusdt@depth20@100ms/solusdt@depth20@100ms',
    );
  });

  it('points the Binance feed at BINANCE_WS_URL', () => {
    const feed = bookFeedFromEnv({ EXCHANGE_FEED: 'binance', BINANCE_WS_URL: 'ws://127.0.0.1:9000/' }, quiet) as BinanceBookFeed;
    expect(feed.url).toBe('ws://127.0.0.1:9000/stream?streams=btcusdt@depth20@100ms/ethusdt@depth20@100ms/solusdt@depth20@100ms');
  });

  it.each([
    [{ EXCHANGE_FEED: 'kafka' }, 'EXCHANGE_FEED'],
    [{ EXCHANGE_FEED: 'nats' }, 'NATS_URL'],
    [{ EXCHANGE_FEED: 'binance', BINANCE_WS_URL: 'https://stream.binance.com' }, 'BINANCE_WS_URL'],
    [{ EXCHANGE_FEED: 'binance', BINANCE_WS_URL: 'wss://stream.binance.com:9443/ws' }, 'BINANCE_WS_URL'],
    [{ NATS_URL: 'not a url' }, 'NATS_URL'],
  ])('refuses %j naming %s', (env, variable) => {
    let caught: unknown;
    try {
      bookFeedFromEnv(env, quiet);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).variable).toBe(variable);
  });
});
