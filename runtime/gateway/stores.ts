/**
 * The gateway's stores, chosen from the environment (design: "Run contract"): Redis when
 * `REDIS_URL` is set (price history, event log, key store, bet snapshots survive restarts and
 * are readable by an operator), otherwise in-memory stores and a key store file in DATA_DIR,
 * with a warning.
 */
import { Redis } from 'ioredis';
import type { EventLog } from '../../adapters/store/event-log.ts';
import { createMemoryEventLog } from '../../adapters/store/event-log-memory.ts';
import { createRedisEventLog } from '../../adapters/store/event-log-redis.ts';
import { deriveKeystoreKey } from '../../adapters/store/keystore-crypto.ts';
import { openFileKeyStore } from '../../adapters/store/keystore-file.ts';
import { openRedisKeyStore } from '../../adapters/store/keystore-redis.ts';
import { resolveKeystoreSecret } from '../../adapters/store/keystore-secret.ts';
import type { KeyStore } from '../../adapters/store/keystore.ts';
import type { PriceHistory } from '../../adapters/store/price-history.ts';
import { createMemoryPriceHistory } from '../../adapters/store/price-history-memory.ts';
import { createRedisPriceHistory } from '../../adapters/store/price-history-redis.ts';
import { MemorySnapshotStore } from '../../adapters/store/snapshot-memory.ts';
import type { SnapshotStore } from '../../adapters/store/snapshot-port.ts';
import { RedisSnapshotStore } from '../../adapters/store/snapshot-redis.ts';
import type { GatewayEvent } from '../../server/gateway/wire.ts';
import type { Logger } from '../log.ts';
import type { GatewayConfig } from './config.ts';

/** Prefix of every gateway key in Redis. */
export const REDIS_PREFIX = 'gw:';

/** Everything the gateway keeps outside the chain. */
export interface GatewayStores {
  history: PriceHistory;
  eventLog: EventLog<GatewayEvent>;
  keys: KeyStore;
  snapshots: SnapshotStore;
  /** where they live, for the boot log */
  kind: 'redis' | 'memory';
  close(): Promise<void>;
}

/** Opens the stores for `config`. */
export async function openStores(config: GatewayConfig, log: Logger): Promise<GatewayStores> {
  const secret = resolveKeystoreSecret({ secret: config.GW_KEYSTORE_SECRET, mode: config.SMART_MODE, dataDir: config.DATA_DIR });
  log.info({ source: secret.source, file: secret.file }, 'key store secret resolved');
  const key = deriveKeystoreKey(secret.secret);
  if (config.REDIS_URL) {
    const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 3 });
    redis.on('error', (err) => log.warn({ err: err.message }, 'redis connection error'));
    await redis.ping();
    return {
      history: createRedisPriceHistory(redis, { prefix: REDIS_PREFIX }),
      eventLog: createRedisEventLog<GatewayEvent>(redis, { prefix: REDIS_PREFIX }),
      keys: await openRedisKeyStore(redis, key, { prefix: REDIS_PREFIX }),
      snapshots: new RedisSnapshotStore(redis, { kind: 'bet', prefix: REDIS_PREFIX }),
      kind: 'redis',
      close: async () => {
        await redis.quit().catch(() => undefined);
      },
    };
  }
  log.warn('REDIS_URL unset: price history, event log and bet snapshots are in memory (lost on restart); keys in DATA_DIR/keystore.json');
  return {
    history: createMemoryPriceHistory(),
    eventLog: createMemoryEventLog<GatewayEvent>(),
    keys: await openFileKeyStore(config.DATA_DIR, key),
    snapshots: new MemorySnapshotStore(),
    kind: 'memory',
    close: async () => undefined,
  };
}
