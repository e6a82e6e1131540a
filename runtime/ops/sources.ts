/**
 * Opens what a command reads, the way the services chose it: Redis when a URL is given
 * (`REDIS_URL` / `--redis-url`), under the services' key prefixes; otherwise the files in
 * `DATA_DIR`. An unreachable Redis is an OpsError within about 2 s, not a hang.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pino from 'pino';
import { readFileExchangeLedger } from '../../adapters/store/exchange-file.ts';
import type { ExchangeStore } from '../../adapters/store/exchange-port.ts';
import { redisExchangeStore } from '../../adapters/store/exchange-redis.ts';
import { redactUrl } from '../../adapters/store/redis-client.ts';
import { messageOf, OpsError } from './errors.ts';
import { fileGatewayRecords } from './gateway-records-file.ts';
import { redisGatewayRecords } from './gateway-records-redis.ts';
import type { GatewayRecords } from './gateway-records.ts';
import type { OpsOptions } from './options.ts';

/** The exchange reads the CLI uses. */
export type ExchangeReads = Pick<ExchangeStore, 'load' | 'listAccountIds' | 'orders' | 'journal' | 'readOrderState'> & {
  readonly where: string;
  close(): Promise<void>;
};

/** Connects to Redis, failing with an OpsError that names it when it does not answer. */
async function connectRedis(url: string): Promise<Redis> {
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: 2_000, commandTimeout: 5_000, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
  let lastError: Error | null = null;
  redis.on('error', (err: Error) => (lastError = err)); // reported by connect() below
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    redis.disconnect();
    throw new OpsError(`cannot reach Redis at ${redactUrl(url)}: ${messageOf(lastError ?? err)}`, 3, { cause: err });
  }
  return redis;
}

/** The gateway's records (snapshots, events, retry requests). */
export async function openGatewayRecords(o: OpsOptions): Promise<GatewayRecords> {
  if (o.redisUrl) return redisGatewayRecords(await connectRedis(o.redisUrl), o.gatewayPrefix, `Redis ${redactUrl(o.redisUrl)} (prefix ${o.gatewayPrefix})`);
  return fileGatewayRecords(o.dataDir);
}

/** The exchange ledger, read-only. */
export async function openExchangeReads(o: OpsOptions): Promise<ExchangeReads> {
  if (o.redisUrl) {
    (await connectRedis(o.redisUrl)).disconnect(); // reachable: the store's own client (made for outages) takes over
    const store = redisExchangeStore(o.redisUrl, o.exchangePrefix, pino({ level: 'silent' }));
    await store.ping().catch(async (err: unknown) => {
      await store.close();
      throw new OpsError(`cannot reach Redis at ${redactUrl(o.redisUrl ?? '')}: ${messageOf(err)}`, 3, { cause: err });
    }); // its transactions are refused until the connection is up
    return { ...store, where: `Redis ${redactUrl(o.redisUrl)} (prefix ${o.exchangePrefix})`, close: () => store.close() };
  }
  const path = join(o.dataDir, 'exchange', 'ledger.log');
  if (!existsSync(path)) throw new OpsError(`no exchange ledger at ${path}: set REDIS_URL for an exchange on Redis, or DATA_DIR (--data-dir) to the exchange's data dir`);
  return { ...readFileExchangeLedger(path), where: path, close: async () => undefined };
}
