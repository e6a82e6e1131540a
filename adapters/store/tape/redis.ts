/**
 * Redis trade tape, shared by every exchange process on one Redis (docs/exchange-api.md#binance-trades):
 *   <p>:tape:<SYMBOL>       stream  the newest trades, entry ids `<trade id>-0`, field `t` (JSON)
 *   <p>:tape:<SYMBOL>:seq   string  the last trade id given
 * An append takes its ids from the counter and adds the trades in one script, so ids are unique
 * and in stream order across processes, and survive restarts. On a Redis Cluster both keys carry
 * the symbol as hash tag (`<p>:tape:{<SYMBOL>}`), so the script touches one slot.
 */
import * as v from 'valibot';
import type { BookSymbol } from '../../../kernel/domain.ts';
import type { RedisClient } from '../redis/client.ts';
import { redisScript } from '../redis/script.ts';
import { TapeTradeJson } from './codec.ts';
import { TAPE_CAPACITY, type TapeStore, type TapeTrade } from './port.ts';

// KEYS: counter, stream; ARGV: capacity, then each trade's JSON. Answers the first id.
const APPEND = redisScript(`
local n = #ARGV - 1
local first = redis.call('INCRBY', KEYS[1], n) - n + 1
for i = 0, n - 1 do
  redis.call('XADD', KEYS[2], 'MAXLEN', ARGV[1], (first + i) .. '-0', 't', ARGV[2 + i])
end
return first
`);

/** Options of the Redis tape. */
export interface RedisTapeOptions {
  /** key prefix [exchange] */
  prefix?: string;
  /** trades kept per symbol [TAPE_CAPACITY] */
  capacity?: number;
  /** on a Redis Cluster: each symbol's keys tagged by the symbol */
  cluster?: boolean;
  /** closes the connection when the tape closes (the caller's connection otherwise) */
  owned?: boolean;
}

/** The keys of `symbol`'s tape. */
export function redisTapeKeys(symbol: BookSymbol, options: Pick<RedisTapeOptions, 'prefix' | 'cluster'> = {}): { stream: string; counter: string } {
  const stream = `${options.prefix ?? 'exchange'}:tape:${options.cluster ? `{${symbol}}` : symbol}`;
  return { stream, counter: `${stream}:seq` };
}

/** Creates the tape on `redis`. */
export function createRedisTapeStore(redis: RedisClient, options: RedisTapeOptions = {}): TapeStore {
  const capacity = options.capacity ?? TAPE_CAPACITY;
  const parse = (symbol: BookSymbol, entries: [string, string[]][]): TapeTrade[] =>
    entries.map(([id, fields]) => {
      const json = fields[fields.indexOf('t') + 1];
      if (json === undefined) throw new Error(`tape entry ${id} has no trade`);
      return { ...v.parse(TapeTradeJson, JSON.parse(json)), symbol, id: Number(id.slice(0, id.indexOf('-'))) };
    });
  return {
    async append(symbol, trades) {
      if (trades.length === 0) return [];
      const { counter, stream } = redisTapeKeys(symbol, options);
      const bodies = trades.map(({ price, qty, quoteQty, time, isBuyerMaker }) => ({ price, qty, quoteQty, time, isBuyerMaker }));
      const first = Number(await APPEND.run(redis, [counter, stream], [capacity, ...bodies.map((b) => JSON.stringify(b))]));
      return bodies.map((b, i) => ({ ...b, symbol, id: first + i }));
    },
    async latest(symbol, limit) {
      const entries = await redis.xrevrange(redisTapeKeys(symbol, options).stream, '+', '-', 'COUNT', limit);
      return parse(symbol, entries).reverse();
    },
    async from(symbol, fromId, limit) {
      return parse(symbol, await redis.xrange(redisTapeKeys(symbol, options).stream, `${Math.max(0, Math.floor(fromId))}-0`, '+', 'COUNT', limit));
    },
    async close() {
      if (options.owned) redis.disconnect();
    },
  };
}
