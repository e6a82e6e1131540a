/**
 * `npm run feed` (bin/feed.ts) as a real child process publishing to a private nats-server,
 * consumed by the feeds the services build from their environment (docs/operations.md#processes).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from '@nats-io/transport-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bookFeedFromEnv, priceFeedFromEnv } from '../../runtime/feed-from-env.ts';
import { decodeBook, decodePriceTick, PRICE_SUBJECT, symbolOfBookSubject } from '../../adapters/feed/messages.ts';
import type { BookSnapshot, PriceTick } from '../../adapters/feed/port.ts';
import { startNatsServer, stopChild, type RunningServer } from '../support/servers.ts';
import { readPriceSignerKey } from '../../adapters/feed/price-signer.ts';
import { verifyTick } from '../../adapters/feed/tick-verify.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { tempDir } from '../support/temp-dir.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const quiet = pino({ level: 'silent' });
// the feed's price signer key and sequence live here, never in the repository's .data
const dataDir = tempDir('feed-bin-');
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function runFeed(env: Record<string, string>): { child: ChildProcess; output: () => string; exit: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/feed.ts'], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'info', DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => out, exit };
}

async function until(what: string, ok: () => boolean, output: () => string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; feed said:\n${output().slice(-3000)}`);
    await sleep(50);
  }
}

describe('npm run feed', () => {
  let nats: RunningServer;
  beforeAll(async () => {
    nats = await startNatsServer();
  });
  afterAll(async () => {
    await nats?.stop();
  });

  it('publishes SOL ticks and BTC/ETH/SOL books until SIGTERM, then exits 0', async () => {
    // what the gateway and the exchange would build from the same NATS_URL
    const prices = priceFeedFromEnv({ NATS_URL: nats.url }, quiet);
    const books = bookFeedFromEnv({ NATS_URL: nats.url }, quiet);
    const ticks: PriceTick[] = [];
    const bookSymbols = new Set<string>();
    prices.onTick((t) => ticks.push(t));
    books.onBook((b: BookSnapshot) => bookSymbols.add(b.symbol));
    await Promise.all([prices.start(), books.start()]);

    // and a raw subscriber that checks every message on the wire
    const raw = await connect({ servers: nats.url });
    const subjects = new Set<string>();
    const faults: string[] = [];
    raw.subscribe('market.>', {
      callback: (_err, msg) => {
        subjects.add(msg.subject);
        const r = msg.subject === PRICE_SUBJECT ? decodePriceTick(msg.data) : decodeBook(msg.data, symbolOfBookSubject(msg.subject));
        if (!r.ok) faults.push(`${msg.subject}: ${r.reason}`);
      },
    });
    await raw.flush();

    const feed = runFeed({ NATS_URL: nats.url, FEED_BOOK_INTERVAL_MS: '200' });
    try {
      await until('ticks and books of every symbol', () => ticks.length >= 2 && bookSymbols.size === 3, feed.output);
      expect([...subjects].sort()).toEqual(['market.book.BTCUSDT', 'market.book.ETHUSDT', 'market.book.SOLUSDT', 'market.price.solusdt']);
      expect(faults).toEqual([]);
      expect(ticks[0]).toMatchObject({ symbol: 'solusdt' });
      expect(ticks[0]!.price).toMatch(/^\d+\.\d{8}$/);

      feed.child.kill('SIGTERM');
      expect(await feed.exit).toBe(0);
      expect(feed.output()).toMatch(/publishing synthetic market data/);
      expect(feed.output()).toMatch(/synthetic feed stopped/);
    } finally {
      await stopChild(feed.child, 'SIGKILL');
      await Promise.all([prices.stop(), books.stop()]);
      await raw.close();
    }
  });

  it('signs every tick with the key it keeps in DATA_DIR; the sequence goes up by 1 and continues after a restart', async () => {
    const prices = priceFeedFromEnv({ NATS_URL: nats.url }, quiet);
    const ticks: PriceTick[] = [];
    prices.onTick((t) => ticks.push(t));
    await prices.start();
    const dir = mkdtempSync(join(dataDir, 'signer-'));
    try {
      for (const round of [1, 2]) {
        const feed = runFeed({ NATS_URL: nats.url, DATA_DIR: dir });
        await until(`ticks of run ${round}`, () => ticks.length >= round * 3, feed.output);
        feed.child.kill('SIGTERM');
        expect(await feed.exit).toBe(0);
        await sleep(100);
      }
      const signer = readPriceSignerKey(dir)?.publicKey.toBase58();
      expect(signer).toBeDefined();
      expect(ticks.every((t) => t.signed?.signer === signer && verifyTick(t) === 'verified')).toBe(true);
      expect(ticks.map((t) => t.signed?.seq)).toEqual(ticks.map((_, i) => i + 1)); // the first is 1
    } finally {
      await prices.stop();
    }
  });

  it('exits 0 on SIGINT as well', async () => {
    const feed = runFeed({ NATS_URL: nats.url });
    try {
      await until('the feed to publish', () => /publishing synthetic market data/.test(feed.output()), feed.output);
      feed.child.kill('SIGINT');
      expect(await feed.exit).toBe(0);
    } finally {
      await stopChild(feed.child, 'SIGKILL');
    }
  });

  it('exits 1 naming the variable when the configuration is bad', async () => {
    const feed = runFeed({ NATS_URL: nats.url, FEED_BOOK_INTERVAL_MS: 'fast' });
    expect(await feed.exit).toBe(1);
    expect(feed.output()).toMatch(/FEED_BOOK_INTERVAL_MS: must be a non-negative integer/);
  });

  it('exits 1 naming the URL when NATS is unreachable', async () => {
    const feed = runFeed({ NATS_URL: 'nats://127.0.0.1:1' });
    expect(await feed.exit).toBe(1);
    expect(feed.output()).toMatch(/cannot connect to NATS at nats:\/\/127\.0\.0\.1:1/);
  });
});
