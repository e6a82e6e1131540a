/**
 * Redis candle store, readable by an operator:
 *   <p>:candles:<SYMBOL>   zset  one-minute candles (JSON) scored by their openTime
 * A write replaces the member of the same minute and trims the oldest past the bound, in one MULTI.
 */
import type { RedisClient } from '../redis/client.ts';
import * as v from 'valibot';
import { CandleJson } from './codec.ts';
import { CANDLE_RETENTION, type CandleStore } from './port.ts';

/** A store on `redis` under `prefix` (default `exchange`); `close` leaves the client open. */
export function createRedisCandleStore(redis: RedisClient, prefix = 'exchange', retention = CANDLE_RETENTION): CandleStore {
  const key = (symbol: string) => `${prefix}:candles:${symbol}`;
  return {
    async put(symbol, candle) {
      await redis
        .multi()
        .zremrangebyscore(key(symbol), candle.openTime, candle.openTime)
        .zadd(key(symbol), candle.openTime, JSON.stringify(candle))
        .zremrangebyrank(key(symbol), 0, -(retention + 1))
        .exec();
    },
    async range(symbol, fromMs, toMs, limit, newest = false) {
      const members = newest
        ? (await redis.zrevrangebyscore(key(symbol), toMs, fromMs, 'LIMIT', 0, limit)).reverse()
        : await redis.zrangebyscore(key(symbol), fromMs, toMs, 'LIMIT', 0, limit);
      return members.map((m) => v.parse(CandleJson, JSON.parse(m)));
    },
    close: async () => undefined,
  };
}
