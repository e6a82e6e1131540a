/**
 * Redis PriceHistory: one sorted set scored by tick ts (member `<ts>:<price>`, or
 * `<ts>:<price>:<seq>:<signature>:<signer>` for a signed tick), so history
 * survives restarts and every gateway process sees the same ticks. Append + trim is one Lua
 * script (atomic across processes).
 */
import type { RedisClient } from '../redis/client.ts';
import { DEFAULT_RETENTION, type PriceHistory, type PriceHistoryRetention, type Tick } from './port.ts';
import { redisScript } from '../redis/script.ts';

// KEYS[1] zset; ARGV: ts, member, retentionMs, maxTicks. Same-ts tick replaced; then trim by age and count.
const APPEND = redisScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], ARGV[1], ARGV[1])
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
local newest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
local cutoff = tonumber(newest[2]) - tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('(%.0f', cutoff))
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -(tonumber(ARGV[4]) + 1))
return 1
`);

/** Options of the Redis price history. */
export interface RedisPriceHistoryOptions {
  /** key prefix, e.g. `gw:`; the sorted set is `<prefix>prices:solusdt` */
  prefix?: string;
  retention?: PriceHistoryRetention;
}

const decode = (member: string | undefined): Tick | undefined => {
  if (member === undefined) return undefined;
  const [ts, price, seq, signature, signer] = member.split(':');
  const tick = { ts: Number(ts), price: price ?? '' };
  return seq !== undefined && signature !== undefined && signer !== undefined ? { ...tick, signed: { seq: Number(seq), signature, signer } } : tick;
};

const encode = (tick: Tick): string =>
  tick.signed ? `${tick.ts}:${tick.price}:${tick.signed.seq}:${tick.signed.signature}:${tick.signed.signer}` : `${tick.ts}:${tick.price}`;

/** Creates a price history on `redis` (the caller owns the connection). */
export function createRedisPriceHistory(redis: RedisClient, options: RedisPriceHistoryOptions = {}): PriceHistory {
  const key = `${options.prefix ?? 'gw:'}prices:solusdt`;
  const retention = options.retention ?? DEFAULT_RETENTION;
  return {
    async append(tick) {
      if (!Number.isSafeInteger(tick.ts)) throw new Error(`tick ts must be an integer of ms, got ${tick.ts}`);
      await APPEND.run(redis, [key], [tick.ts, encode(tick), retention.retentionMs, retention.maxTicks]);
    },
    async latest() {
      return decode((await redis.zrange(key, '-1', '-1'))[0]);
    },
    async atOrBefore(tsMs) {
      return decode((await redis.zrevrangebyscore(key, String(tsMs), '-inf', 'LIMIT', 0, 1))[0]);
    },
    async hasTickAtOrAfter(tsMs) {
      return (await redis.zcount(key, tsMs, '+inf')) > 0;
    },
    async between(fromMs, toMs) {
      const members = await redis.zrangebyscore(key, String(fromMs), String(toMs));
      return members.map((m) => decode(m) as Tick);
    },
    async size() {
      return redis.zcard(key);
    },
  };
}
