/**
 * `npm run feed`: publishes synthetic SOL/USDT ticks, signed by the price signer
 * (docs/decisions.md#signed-prices), on `market.price.solusdt` and synthetic
 * BTC/ETH/SOL books on `market.book.<SYMBOL>` (docs/operations.md#market-data-on-nats) to `NATS_URL`
 * (default nats://127.0.0.1:4222) until SIGINT/SIGTERM.
 */
import { BOOK_SUBJECTS, PRICE_SUBJECT } from '../adapters/feed/messages.ts';
import { connectNats } from '../adapters/feed/nats-connection.ts';
import { publishBook, publishPrice } from '../adapters/feed/publisher.ts';
import { SyntheticBookFeed } from '../adapters/feed/synthetic-book.ts';
import { SyntheticPriceFeed } from '../adapters/feed/synthetic-price.ts';
import { SigningPriceFeed, SYNTHETIC_HEARTBEAT } from '../adapters/feed/signing-feed.ts';
import { loadPriceSigner } from '../adapters/feed/price-signer.ts';
import { commonEnv, describe, integer, natsUrl, priceSignerEnv, readEnv, text } from '../runtime/env.ts';
import { componentLog, log as rootLog } from '../kernel/log.ts';
import { runService } from './process.ts';

const feedEnv = {
  NATS_URL: describe('NATS server to publish to', natsUrl('nats://127.0.0.1:4222')),
  FEED_BOOK_INTERVAL_MS: describe('period of the synthetic books, ms', integer(500, 50)),
  FEED_REPORT_INTERVAL_MS: describe('period of the "published since start" log line, ms', integer(10_000, 100)),
  DATA_DIR: describe("where the price signer's key and sequence number are kept", text('.data')),
  ...priceSignerEnv,
  ...commonEnv,
};

await runService(
  {
    name: 'feed',
    command: 'npm run feed',
    purpose: 'Synthetic market data on NATS: SOL/USDT ticks on market.price.solusdt and BTC/ETH/SOL books on market.book.<SYMBOL>.',
    env: feedEnv,
  },
  async () => {
    const cfg = readEnv(feedEnv);
    const log = componentLog(rootLog, 'feed');
    const nc = await connectNats(cfg.NATS_URL, 'synthetic-feed', rootLog);
    const signer = loadPriceSigner({ dataDir: cfg.DATA_DIR, ...(cfg.PRICE_SIGNER_KEY ? { secret: cfg.PRICE_SIGNER_KEY } : {}) });
    const prices = new SigningPriceFeed(new SyntheticPriceFeed({ logger: rootLog }), signer, rootLog, SYNTHETIC_HEARTBEAT);
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
    const report = setInterval(() => log.info({ ticks, books: bookCount, lastPrice }, 'published since start'), cfg.FEED_REPORT_INTERVAL_MS);

    await Promise.all([prices.start(), books.start()]);
    log.info(
      { url: cfg.NATS_URL, subjects: [PRICE_SUBJECT, ...BOOK_SUBJECTS], priceSigner: signer.publicKey, nextSeq: signer.nextSeq.toString() },
      'publishing synthetic market data',
    );
    return {
      async stop() {
        clearInterval(report);
        await Promise.all([prices.stop(), books.stop()]);
        // drain sends whatever is still buffered before closing
        await nc.drain();
        log.info({ ticks, books: bookCount }, 'synthetic feed stopped');
      },
    };
  },
);
