/**
 * Opens what a command reads, the way the services chose it: Redis when a URL is given
 * (`REDIS_URL` / `--redis-url`) or a cluster's nodes (`REDIS_CLUSTER_NODES` /
 * `--redis-cluster-nodes`: docs/operations.md#redis-cluster), under the services' key prefixes
 * (the gateway's is `{gw}:` on a cluster); otherwise the files in `DATA_DIR`. An unreachable
 * Redis is an OpsError within about 2 s, not a hang.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Cluster } from 'ioredis';
import pino from 'pino';
import { readFileExchangeLedger } from '../../adapters/store/exchange/file.ts';
import type { ExchangeStore } from '../../adapters/store/exchange/port.ts';
import { createRedisExchangeStore } from '../../adapters/store/exchange/redis.ts';
import type { RedisClient } from '../../adapters/store/redis/client.ts';
import { gatewayKeyPrefix } from '../../adapters/store/redis/cluster.ts';
import { connectTarget, isClusterTarget, redisTargetOf, targetText, type RedisTarget } from '../../adapters/store/redis/target.ts';
import { ConfigError } from '../../kernel/errors.ts';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { natsServers } from '../../adapters/feed/nats-connection.ts';
import { openJetStreamEventLog } from '../../adapters/store/event-log/jetstream.ts';
import type { LoggedEvent } from '../../adapters/store/event-log/port.ts';
import { streamNameOf } from '../gateway/events/shared-stream.ts';
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

/** The Redis the options name (a URL, or a primary named by Sentinels), null for the files in DATA_DIR. */
export function opsRedisTarget(o: OpsOptions): RedisTarget | null {
  try {
    return redisTargetOf({
      REDIS_URL: o.redisUrl,
      REDIS_SENTINELS: o.redisSentinels,
      REDIS_MASTER_NAME: o.redisMasterName,
      REDIS_CLUSTER_NODES: o.redisClusterNodes,
    });
  } catch (err) {
    if (err instanceof ConfigError) throw new OpsError(`option: ${err.message}`);
    throw err;
  }
}

/** Connects to Redis, failing with an OpsError that names it when it does not answer. */
async function connectRedis(target: RedisTarget): Promise<RedisClient> {
  const node = { connectTimeout: 2_000, commandTimeout: 5_000, maxRetriesPerRequest: 0 };
  const redis: RedisClient = isClusterTarget(target)
    ? new Cluster([...target.cluster], { lazyConnect: true, enableOfflineQueue: false, clusterRetryStrategy: () => null, redisOptions: node })
    : connectTarget(target, { ...node, lazyConnect: true, enableOfflineQueue: false, retryStrategy: () => null, sentinelRetryStrategy: () => null });
  let lastError: Error | null = null;
  redis.on('error', (err: Error) => (lastError = err)); // reported by connect() below
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    redis.disconnect();
    throw new OpsError(`cannot reach Redis at ${targetText(target)}: ${messageOf(lastError ?? err)}`, 3, { cause: err });
  }
  return redis;
}

/** The gateway's records (snapshots, events, retry requests); with NATS, the events of the gateways' shared stream. */
export async function openGatewayRecords(o: OpsOptions): Promise<GatewayRecords> {
  const target = opsRedisTarget(o);
  const prefix = target ? (o.gatewayPrefix ?? gatewayKeyPrefix(target)) : '';
  const records = target
    ? redisGatewayRecords(await connectRedis(target), prefix, `Redis ${targetText(target)} (prefix ${prefix})`)
    : fileGatewayRecords(o.dataDir);
  if (!o.natsUrl) return records;
  try {
    const stream = await openStreamEvents(o.natsUrl, o.eventStream);
    return {
      ...records,
      eventsSince: stream.eventsSince,
      close: async () => {
        await stream.close();
        await records.close();
      },
    };
  } catch (err) {
    await records.close();
    throw err;
  }
}

/** Reads the gateways' JetStream event stream (`seq` is the stream sequence every gateway shows). */
async function openStreamEvents(natsUrl: string, subjectPrefix: string): Promise<Pick<GatewayRecords, 'eventsSince' | 'close'>> {
  let nc: NatsConnection;
  try {
    nc = await connect({ servers: natsServers(natsUrl), timeout: 2_000, reconnect: false });
  } catch (err) {
    throw new OpsError(`cannot reach NATS at ${natsUrl}: ${messageOf(err)}`, 3, { cause: err });
  }
  const log = await openJetStreamEventLog<LoggedEvent>(nc, { stream: streamNameOf(subjectPrefix), subjectPrefix, log: pino({ level: 'silent' }) });
  return { eventsSince: (since, limit) => log.readSince(since, limit), close: () => nc.close() };
}

/** The exchange ledger, read-only. */
export async function openExchangeReads(o: OpsOptions): Promise<ExchangeReads> {
  const target = opsRedisTarget(o);
  if (target) {
    (await connectRedis(target)).disconnect(); // reachable: the store's own client (made for outages) takes over
    const store = createRedisExchangeStore(target, o.exchangePrefix, pino({ level: 'silent' }));
    await store.ping().catch(async (err: unknown) => {
      await store.close();
      throw new OpsError(`cannot reach Redis at ${targetText(target)}: ${messageOf(err)}`, 3, { cause: err });
    }); // its transactions are refused until the connection is up
    return { ...store, where: `Redis ${targetText(target)} (prefix ${o.exchangePrefix})`, close: () => store.close() };
  }
  const path = join(o.dataDir, 'exchange', 'ledger.log');
  if (!existsSync(path))
    throw new OpsError(`no exchange ledger at ${path}: set REDIS_URL for an exchange on Redis, or DATA_DIR (--data-dir) to the exchange's data dir`);
  return { ...readFileExchangeLedger(path), where: path, close: async () => undefined };
}
