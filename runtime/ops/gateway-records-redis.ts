/**
 * Gateway records in Redis, under the gateway's key prefix (`gw:` by default, `{gw}:` on a cluster,
 * see `bin/gateway-stores.ts`): snapshots `<p>bet:<id>`, live ids `<p>bets:live`, the event log
 * (`adapters/store/event-log/redis.ts`), and retry requests published on `<p>ops:retry`.
 */
import type { RedisClient } from '../../adapters/store/redis/client.ts';
import { publishToAll } from '../../adapters/store/redis/cluster.ts';
import { createRedisBetHistory } from '../../adapters/store/bet-history/redis.ts';
import { createRedisEventLog } from '../../adapters/store/event-log/redis.ts';
import { createRedisIntentStore } from '../../adapters/store/intents/redis.ts';
import type { LoggedEvent } from '../../adapters/store/event-log/port.ts';
import { parseOrNull } from '../../adapters/store/snapshot/port.ts';
import { retryChannel } from '../gateway/settlement/retry-requests.ts';
import type { GatewayRecords, StoredBet } from './gateway-records.ts';

/** Records over an open connection (closed by `close`). */
export function redisGatewayRecords(redis: RedisClient, prefix: string, where: string): GatewayRecords {
  const key = (id: string) => `${prefix}bet:${id}`;
  const liveKey = `${prefix}bets:live`;
  const events = createRedisEventLog<LoggedEvent>(redis, { prefix });
  const history = createRedisBetHistory(redis, { prefix });
  const intents = createRedisIntentStore(redis, { prefix });
  return {
    where,
    intents: () => intents.list(),
    async liveBets() {
      const ids = (await redis.smembers(liveKey)).sort((a, b) => Number(a) - Number(b));
      if (ids.length === 0) return [];
      const values = await redis.mget(ids.map(key));
      const out: StoredBet[] = [];
      ids.forEach((id, i) => {
        const json = values[i];
        if (json !== null && json !== undefined) out.push({ id, snapshot: parseOrNull(json), live: true });
      });
      return out;
    },
    async bet(id) {
      const [json, live] = await Promise.all([redis.get(key(id)), redis.sismember(liveKey, id)]);
      return json === null ? null : { id, snapshot: parseOrNull(json), live: live === 1 };
    },
    record: (betId) => history.get(betId),
    eventsSince: (since, limit) => events.readSince(since, limit),
    async requestRetry(id) {
      return { via: 'redis', receivers: await publishToAll(redis, retryChannel(prefix), id) };
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
