/**
 * The gateway's stores, chosen from the environment (docs/architecture.md#stores): Redis when
 * `REDIS_URL`, `REDIS_SENTINELS` or `REDIS_CLUSTER_NODES` is set (price history, event log, key
 * store, bet snapshots survive restarts and are readable by an operator; on a cluster every key
 * carries the hash tag `{gw}`: docs/operations.md#redis-cluster), otherwise one journal file and a key store file in DATA_DIR
 * (they survive kill -9 like the Redis setup: docs/architecture.md#the-embedded-journal), held by this
 * process alone (`DATA_DIR/gateway.lock`).
 */
import { join } from 'node:path';
import { lockDataDir } from '../adapters/store/file/data-dir-lock.ts';
import type { BetHistoryStore, BetRecord } from '../adapters/store/bet-history/port.ts';
import { createRedisBetHistory, redisHistoryLayout } from '../adapters/store/bet-history/redis.ts';
import type { EventLog } from '../adapters/store/event-log/port.ts';
import { createRedisEventLog } from '../adapters/store/event-log/redis.ts';
import { openGatewayJournal } from '../adapters/store/file/gateway-journal.ts';
import { deriveKeystoreKey } from '../adapters/store/keystore/crypto.ts';
import { openFileKeyStore } from '../adapters/store/keystore/file.ts';
import { openRedisKeyStore } from '../adapters/store/keystore/redis.ts';
import { resolveKeystoreSecret } from '../adapters/store/keystore/secret.ts';
import type { KeyStore } from '../adapters/store/keystore/port.ts';
import { openFileIntentStore } from '../adapters/store/intents/file.ts';
import type { IntentStore } from '../adapters/store/intents/port.ts';
import { createRedisIntentStore } from '../adapters/store/intents/redis.ts';
import type { PriceHistory } from '../adapters/store/price-history/port.ts';
import { createRedisPriceHistory } from '../adapters/store/price-history/redis.ts';
import { openRedis, type RedisClient } from '../adapters/store/redis/client.ts';
import { gatewayKeyPrefix } from '../adapters/store/redis/cluster.ts';
import { watchServerChanges, type ServerChange } from '../adapters/store/redis/failover.ts';
import { targetText } from '../adapters/store/redis/target.ts';
import type { SnapshotStore } from '../adapters/store/snapshot/port.ts';
import { createRedisSnapshotStore } from '../adapters/store/snapshot/redis.ts';
import type { BetEmittedEvent } from '../machines/bet-events.ts';
import type { Logger } from '../kernel/log.ts';
import type { GatewayConfig } from './gateway-env.ts';
import type { GatewayEvent } from '../runtime/gateway/events/schemas.ts';
import type { DependencyLinks } from '../runtime/dependency-links.ts';
import { waitFor } from '../runtime/wait-for.ts';

/** Everything the gateway keeps outside the chain. */
export interface GatewayStores {
  history: PriceHistory;
  eventLog: EventLog<GatewayEvent>;
  keys: KeyStore;
  /** bet snapshots; each commit also writes the bet history records it changes */
  snapshots: SnapshotStore<BetEmittedEvent, BetRecord>;
  /** bets with their settlement evidence (GET /api/bets, /api/leaderboard), written by the snapshot commits */
  betHistory: BetHistoryStore;
  /** transactions being landed (docs/architecture.md#landing-transactions) */
  intents: IntentStore;
  /** where they live, for the boot log */
  kind: 'redis' | 'file';
  /** the Redis connection, when the stores are in Redis (health checks) */
  redis: RedisClient | null;
  /** prefix of every gateway key in Redis (`gw:`, `{gw}:` on a cluster) */
  prefix: string;
  /** runs `listener` each time the Redis behind the stores turns out to be another server (a failover); a no-op without Redis */
  onRedisChange(listener: (change: ServerChange) => void): void;
  close(): Promise<void>;
}

/** Opens the stores for `config`; with Redis configured, waits (logging) until it answers (its connection linked in `links`). */
export async function openStores(config: GatewayConfig, log: Logger, links?: DependencyLinks): Promise<GatewayStores> {
  const secret = resolveKeystoreSecret({ secret: config.GW_KEYSTORE_SECRET, mode: config.SMART_MODE, dataDir: config.DATA_DIR });
  log.info({ source: secret.source, file: secret.file }, 'key store secret resolved');
  const key = deriveKeystoreKey(secret.secret);
  const { target, durability } = config.redis;
  if (target) {
    const redis = openRedis(target, { log, name: 'gateway', watch: links?.link('redis') });
    await waitFor(`Redis at ${targetText(target)}`, () => redis.ping(), log);
    const prefix = gatewayKeyPrefix(target);
    const listeners: Array<(change: ServerChange) => void> = [];
    const unwatch = watchServerChanges(redis, (change) => listeners.forEach((l) => l(change)), log);
    return {
      history: createRedisPriceHistory(redis, { prefix: prefix }),
      eventLog: createRedisEventLog<GatewayEvent>(redis, { prefix: prefix }),
      keys: await openRedisKeyStore(redis, key, { prefix: prefix }),
      snapshots: createRedisSnapshotStore<BetEmittedEvent, BetRecord>(redis, {
        kind: 'bet',
        prefix: prefix,
        records: redisHistoryLayout(prefix),
        durability,
      }),
      betHistory: createRedisBetHistory(redis, { prefix: prefix }),
      intents: createRedisIntentStore(redis, { prefix: prefix }),
      kind: 'redis',
      redis,
      prefix,
      onRedisChange: (listener) => void listeners.push(listener),
      close: async () => {
        unwatch();
        await redis.quit().catch(() => undefined);
      },
    };
  }
  const lock = lockDataDir(config.DATA_DIR, 'gateway');
  const path = join(config.DATA_DIR, 'gateway', 'journal.log');
  const journal = openGatewayJournal<GatewayEvent, BetEmittedEvent>(path);
  const intents = openFileIntentStore(join(config.DATA_DIR, 'gateway', 'intents.log'));
  log.info(
    { journal: path, lines: journal.lines() },
    'REDIS_URL unset (and no REDIS_SENTINELS or REDIS_CLUSTER_NODES): price history, event log, bet snapshots and bet history are kept in DATA_DIR; keys in DATA_DIR/keystore.json',
  );
  return {
    history: journal.history,
    eventLog: journal.eventLog,
    keys: await openFileKeyStore(config.DATA_DIR, key),
    snapshots: journal.snapshots,
    betHistory: journal.betHistory,
    intents,
    kind: 'file',
    redis: null,
    prefix: '',
    onRedisChange: () => undefined,
    close: async () => {
      intents.close();
      await journal.close();
      lock.release();
    },
  };
}
