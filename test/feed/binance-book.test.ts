/**
 * BinanceBookFeed over real sockets against a local stand-in that speaks Binance's combined
 * depth-stream format (live books with staleness measured from arrival:
 * docs/exchange-api.md#symbols).
 */
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BinanceBookFeed, type BinanceBookFeedOptions } from '../../adapters/feed/binance-book.ts';
import type { BookSnapshot } from '../../adapters/feed/port.ts';
import { startBinanceStandIn, type BinanceStandIn } from '../support/binance-standin.ts';
import { freePort } from '../support/servers.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const quiet = pino({ level: 'silent' });
const BTC = 'btcusdt@depth20@100ms';
const ETH = 'ethusdt@depth20@100ms';
const SOL = 'solusdt@depth20@100ms';

async function until(what: string, ok: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

describe('BinanceBookFeed against the local stand-in', () => {
  let binance: BinanceStandIn;
  let feed: BinanceBookFeed | undefined;
  let books: BookSnapshot[];

  const startFeed = async (options: BinanceBookFeedOptions = {}) => {
    feed = new BinanceBookFeed({ baseUrl: binance.baseUrl, backoffInitialMs: 20, backoffMaxMs: 200, logger: quiet, ...options });
    feed.onBook((b) => books.push(b));
    await feed.start();
    return feed;
  };

  beforeEach(async () => {
    binance = await startBinanceStandIn();
    books = [];
  });
  afterEach(async () => {
    await feed?.stop();
    feed = undefined;
    await binance.close();
  });

  it('opens the combined depth20 stream of the three symbols', async () => {
    await startFeed();
    expect(binance.requests).toEqual(['/stream?streams=btcusdt@depth20@100ms/ethusdt@depth20@100ms/solusdt@depth20@100ms']);
  });

  it('maps streams to symbols and stamps each book with its arrival time', async () => {
    await startFeed();
    const before = Date.now();
    const sent = [binance.sendDepth(BTC), binance.sendDepth(ETH), binance.sendDepth(SOL)];
    await until('three books', () => books.length === 3);
    const after = Date.now();
    expect(books.map((b) => b.symbol)).toEqual(['BTCUSDT', 'ETHUSDT', 'SOLUSDT']);
    books.forEach((b, i) => {
      expect(b.bids).toEqual(sent[i]!.bids);
      expect(b.asks).toEqual(sent[i]!.asks);
      expect(b.ts).toBeGreaterThanOrEqual(before);
      expect(b.ts).toBeLessThanOrEqual(after);
    });
  });

  it('takes ts from its arrival clock, not from the frame', async () => {
    let arrivals = 0;
    await startFeed({ now: () => 1_763_700_000_000 + ++arrivals });
    binance.sendDepth(BTC);
    binance.sendDepth(BTC);
    await until('two books', () => books.length === 2);
    expect(books.map((b) => b.ts)).toEqual([1_763_700_000_001, 1_763_700_000_002]);
  });

  it('drops malformed frames and keeps delivering', async () => {
    await startFeed();
    binance.sendRaw('this is not json');
    binance.sendRaw(Buffer.from([1, 2, 3]), true);
    binance.sendRaw(JSON.stringify({ result: null, id: 1 }));
    binance.sendRaw(JSON.stringify({ stream: 'dogeusdt@depth20@100ms', data: { lastUpdateId: 1, bids: [['1', '1']], asks: [['2', '1']] } }));
    binance.sendRaw(JSON.stringify({ stream: BTC, data: { lastUpdateId: 'x', bids: [], asks: [] } }));
    binance.sendDepth(BTC, {
      bids: [
        ['96999.00', '1'],
        ['97000.00', '1'],
      ],
    }); // ascending bids
    binance.sendDepth(ETH, { bids: [['3600.00', '1']] }); // crossed with the asks from 3500.00
    const good = binance.sendDepth(SOL);
    await until('the good book', () => books.length === 1);
    expect(books[0]).toMatchObject({ symbol: 'SOLUSDT', bids: good.bids, asks: good.asks });
    expect(feed!.dropped).toBe(7);
  });

  it('leaves out empty levels and refuses an older update than the last one seen', async () => {
    await startFeed();
    const sent = binance.sendDepth(BTC, {
      lastUpdateId: 500,
      bids: [
        ['97000.00', '0.00000000'],
        ['96999.99', '1.5'],
      ],
    });
    binance.sendDepth(BTC, { lastUpdateId: 499 });
    binance.sendDepth(BTC, { lastUpdateId: 500 }); // same id again: still current, kept
    binance.sendDepth(ETH, { lastUpdateId: 1 }); // ids are per symbol
    await until('three books', () => books.length === 3);
    expect(books[0]!.bids).toEqual([['96999.99', '1.5']]);
    expect(books[0]!.asks).toEqual(sent.asks);
    expect(books.map((b) => b.symbol)).toEqual(['BTCUSDT', 'BTCUSDT', 'ETHUSDT']);
    expect(feed!.dropped).toBe(1);
  });

  it('reconnects after the server drops the connection', async () => {
    await startFeed();
    binance.sendDepth(BTC);
    await until('a book', () => books.length === 1);
    binance.dropAll();
    await binance.waitForConnections(2);
    await until('the new link to be live', () => binance.open() === 1);
    binance.sendDepth(ETH);
    await until('a book after the reconnect', () => books.length === 2);
    expect(books[1]!.symbol).toBe('ETHUSDT');
    expect(feed!.connections).toBe(2);
    expect(binance.requests[1]).toBe(binance.requests[0]);
  });

  it('keeps reconnecting through repeated drops', async () => {
    await startFeed();
    for (let n = 2; n <= 4; n++) {
      binance.dropAll();
      await binance.waitForConnections(n);
      await until('the new link', () => binance.open() === 1);
    }
    binance.sendDepth(SOL);
    await until('a book', () => books.length === 1);
    expect(feed!.connections).toBe(4);
  });

  it('answers server pings with the same payload', async () => {
    await startFeed();
    await expect(binance.ping('are you there')).resolves.toBe('are you there');
  });

  it('replaces its link before the maximum age, opening the new one before closing the old', async () => {
    const stopStreaming = binance.streamBooks(20);
    await startFeed({ maxConnectionAgeMs: 300 });
    await binance.waitForConnections(2);
    await until('the old link to be closed by the client', () => binance.clientCloses.length >= 1);
    stopStreaming();
    // polite close, and the replacement was already open when the old link went
    expect(binance.clientCloses[0]).toEqual({ code: 1000, stillOpen: 1 });
    const seen = books.length;
    binance.sendDepth(BTC);
    await until('a book on the new link', () => books.length > seen);
  });

  it('redials a link that has gone silent', async () => {
    await startFeed({ silenceTimeoutMs: 200 });
    await binance.waitForConnections(2);
    await until('the new link', () => binance.open() === 1);
    binance.sendDepth(BTC);
    await until('a book', () => books.length === 1);
  });

  it('stop() closes the link politely and does not redial', async () => {
    const f = await startFeed();
    await f.stop();
    await until('the link to close', () => binance.open() === 0);
    expect(binance.clientCloses).toEqual([{ code: 1000, stillOpen: 0 }]);
    // well past the 20-200 ms backoff: no new connection
    await sleep(500);
    expect(binance.accepted()).toBe(1);
  });

  it('start() fails, naming the URL, when nothing answers in time', async () => {
    const port = await freePort();
    feed = new BinanceBookFeed({ baseUrl: `ws://127.0.0.1:${port}`, backoffInitialMs: 20, backoffMaxMs: 50, connectTimeoutMs: 400, logger: quiet });
    await expect(feed.start()).rejects.toThrow(new RegExp(`no connection to ws://127\\.0\\.0\\.1:${port}/stream\\?streams=btcusdt@depth20@100ms`));
  });
});
