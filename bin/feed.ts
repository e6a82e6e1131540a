/**
 * `npm run feed`: publishes synthetic SOL/USDT ticks on `market.price.solusdt` and synthetic
 * BTC/ETH/SOL books on `market.book.<SYMBOL>` (design: "Messages on NATS") to `NATS_URL`
 * (default nats://127.0.0.1:4222) until SIGINT/SIGTERM.
 */
import { ConfigError, integer, readEnv, text } from '../runtime/env.ts';
import { componentLog, log as rootLog } from '../runtime/log.ts';
import { BOOK_SUBJECTS, PRICE_SUBJECT } from '../adapters/feed/messages.ts';
import { connectNats } from '../adapters/feed/nats-connection.ts';
import { publishBook, publishPrice } from '../adapters/feed/publisher.ts';
import { SyntheticBookFeed } from '../adapters/feed/synthetic-book.ts';
import { SyntheticPriceFeed } from '../adapters/feed/synthetic-price.ts';

const log = componentLog(rootLog, 'feed');

async function main(): Promise<void> {
  const cfg = readEnv({
    NATS_URL: text('nats://127.0.0.1:4222'),
    FEED_BOOK_INTERVAL_MS: integer(500, 50),
    FEED_REPORT_INTERVAL_MS: integer(10_000, 100),
  });
  const nc = await connectNats(cfg.NATS_URL, 'synthetic-feed', rootLog);
  const prices = new SyntheticPriceFeed({ logger: rootLog });
  const books = new SyntheticBookFeed({ intervalMs: cfg.FEED_BOOK_INTERVAL_MS, logger: rootLog });

  let ticks = 0;
  let bookCount = 0;
  let lastPrice = '';
  prices.onTick((tick) => {
    publishPrice(nc, tick);
    ticks++;
    lastPrice = tick.price;
  });
  books.onBook((book) => {
    publishBook(nc, book);
    bookCount++;
  });

  const report = setInterval(() => {
    log.info({ ticks, books: bookCount, lastPrice }, 'published since start');
  }, cfg.FEED_REPORT_INTERVAL_MS);

  let stopping = false;
  const shutdown = async (signal: NodeJS.Signals): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping the synthetic feed');
    clearInterval(report);
    await Promise.all([prices.stop(), books.stop()]);
    // drain sends whatever is still buffered before closing
    await nc.drain();
    log.info({ ticks, books: bookCount }, 'synthetic feed stopped');
    process.exit(0);
  };
  process.once('SIGINT', (s) => void shutdown(s));
  process.once('SIGTERM', (s) => void shutdown(s));

  await Promise.all([prices.start(), books.start()]);
  log.info({ url: cfg.NATS_URL, subjects: [PRICE_SUBJECT, ...BOOK_SUBJECTS] }, 'publishing synthetic market data');
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) log.fatal({ variable: err.variable }, err.message);
  else log.fatal({ err }, 'feed failed');
  process.exit(1);
});
