/**
 * BetHistoryStore on Redis. Layout under the prefix (`gw:`): `hist:bet:<id>` the record as JSON,
 * `hist:bettor:<address>` a sorted set of the bettor's ids (score: the id), `hist:opened` and
 * `hist:closed` sorted sets of ids by the unix ms the bet opened / closed (pruning, leaderboard).
 * The gateway writes records in the commit of the bet's snapshot (`redisHistoryLayout` tells the
 * snapshot store where they go); a `put` is one MULTI. Either way the indexes never point at a
 * record that was not written.
 */
import type { RedisClient } from '../redis/client.ts';
import { byIdDescending, parseRecord, type BetHistoryStore, type BetRecord } from './port.ts';
import type { RedisRecordLayout } from '../snapshot/redis.ts';

const historyPrefix = (prefix = 'gw:') => `${prefix}hist:`;

/** Where a bet record and its index entries live under `prefix` (shared by the store and the snapshot commit). */
export function redisHistoryLayout(prefix?: string): RedisRecordLayout<BetRecord> {
  const p = historyPrefix(prefix);
  return {
    writeOf(record) {
      const index = [
        { key: `${p}bettor:${record.bettor}`, score: Number(record.id), member: record.id },
        { key: `${p}opened`, score: record.openedAt, member: record.id },
      ];
      if (record.closedAt !== null) index.push({ key: `${p}closed`, score: record.closedAt, member: record.id });
      return { key: `${p}bet:${record.id}`, value: JSON.stringify(record), index };
    },
  };
}

/** Options of the Redis bet history. */
export interface RedisBetHistoryOptions {
  /** key prefix [`gw:`] */
  prefix?: string;
}

const CHUNK = 500;

/** Creates a bet history on `redis` (the caller owns the connection). */
export function createRedisBetHistory(redis: RedisClient, options: RedisBetHistoryOptions = {}): BetHistoryStore {
  const p = historyPrefix(options.prefix);
  const layout = redisHistoryLayout(options.prefix);
  const recordKey = (id: string) => `${p}bet:${id}`;
  const bettorKey = (address: string) => `${p}bettor:${address}`;
  const opened = `${p}opened`;
  const closed = `${p}closed`;

  const load = async (ids: readonly string[]): Promise<BetRecord[]> => {
    const out: BetRecord[] = [];
    for (let i = 0; i < ids.length; i += CHUNK) {
      const texts = await redis.mget(...ids.slice(i, i + CHUNK).map(recordKey));
      for (const t of texts) {
        const r = parseRecord(t);
        if (r) out.push(r);
      }
    }
    return out;
  };

  return {
    async put(record) {
      const w = layout.writeOf(record);
      const tx = redis.multi().set(w.key, w.value);
      for (const entry of w.index) tx.zadd(entry.key, entry.score, entry.member);
      await tx.exec();
    },
    async get(id) {
      return parseRecord(await redis.get(recordKey(id)));
    },
    async pageOf(bettor, limit, beforeId) {
      // scores are the ids; an exclusive upper bound pages below the cursor
      const max = beforeId === undefined ? '+inf' : `(${beforeId}`;
      const ids = await redis.zrevrangebyscore(bettorKey(bettor), max, '-inf', 'LIMIT', 0, limit);
      return (await load(ids)).sort(byIdDescending);
    },
    async closedSince(sinceMs) {
      return load(await redis.zrangebyscore(closed, String(sinceMs), '+inf'));
    },
    async pruneOpenedBefore(cutoffMs) {
      const ids = await redis.zrangebyscore(opened, '-inf', `(${cutoffMs}`);
      let removed = 0;
      for (let i = 0; i < ids.length; i += CHUNK) {
        const chunk = ids.slice(i, i + CHUNK);
        const texts = await redis.mget(...chunk.map(recordKey));
        const tx = redis
          .multi()
          .del(...chunk.map(recordKey))
          .zrem(opened, ...chunk)
          .zrem(closed, ...chunk);
        chunk.forEach((id, k) => {
          const r = parseRecord(texts[k]);
          if (r) tx.zrem(bettorKey(r.bettor), id);
        });
        await tx.exec();
        removed += chunk.length;
      }
      return removed;
    },
    async close() {},
  };
}
