/**
 * Operator retry requests (`npm run ops -- retry <id>`): a bet series waiting in a backoff is
 * retried at once by the gateway that runs it. With Redis the request is a message on the
 * channel `<prefix>ops:retry` (the series id as text); embedded, a file named `<id>` in
 * `DATA_DIR/gateway/retry-requests/`, which the gateway picks up (and removes) within `pollMs`.
 *
 * @example
 *   const requests = await listenForRetryRequests({ redis, prefix: 'gw:', dataDir, retry: (id) => bets.retryNow(id), log });
 *   await requests.stop();
 */
import { mkdirSync, readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { RedisClient } from '../../../adapters/store/redis/client.ts';
import { subscriberOf } from '../../../adapters/store/redis/cluster.ts';
import type { Logger } from '../../../kernel/log.ts';

/** The Redis channel a gateway with key prefix `prefix` listens on. */
export const retryChannel = (prefix: string): string => `${prefix}ops:retry`;

/** The folder an embedded gateway watches for request files. */
export const retryRequestDir = (dataDir: string): string => join(dataDir, 'gateway', 'retry-requests');

/** A series id as the stores key it (a decimal bet id). */
export const isChainId = (id: string): boolean => /^\d{1,20}$/.test(id);

/** Where requests come from and what to do with one. */
export interface RetryRequestOptions {
  /** the gateway's Redis connection (duplicated for the subscription); null: the embedded request folder */
  redis: RedisClient | null;
  prefix: string;
  dataDir: string;
  /** retries one chain now; returns what it did, for the log */
  retry: (seriesId: string) => string;
  log: Logger;
  pollMs?: number;
}

/** A running listener. */
export interface RetryRequests {
  stop(): Promise<void>;
}

/** Starts listening for retry requests. */
export async function listenForRetryRequests(options: RetryRequestOptions): Promise<RetryRequests> {
  const { log } = options;
  const handle = (id: string, via: string) => {
    if (!isChainId(id)) return log.warn({ id, via }, 'ignored a retry request that does not name a bet series');
    const outcome = options.retry(id);
    log.info({ seriesId: id, outcome, via }, `operator retry of bet series ${id}: ${outcome}`);
  };

  if (options.redis) {
    // a subscriber connection of its own, which waits for Redis instead of failing fast
    const sub = subscriberOf(options.redis);
    sub.on('error', () => undefined); // outages are logged by the gateway's main connection
    const channel = retryChannel(options.prefix);
    sub.on('message', (ch: string, message: string) => {
      if (ch === channel) handle(message.trim(), 'redis');
    });
    await sub
      .subscribe(channel)
      .catch((err: unknown) => log.error({ err, channel }, 'could not subscribe to operator retry requests; they are taken once Redis answers'));
    return {
      async stop() {
        await sub.quit().catch(() => sub.disconnect());
      },
    };
  }

  const dir = retryRequestDir(options.dataDir);
  mkdirSync(dir, { recursive: true });
  const poll = () => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      try {
        unlinkSync(join(dir, name));
      } catch {
        continue; // taken by another poll, or not ours to remove
      }
      handle(name, 'file');
    }
  };
  const timer = setInterval(poll, options.pollMs ?? 250);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
    },
  };
}
