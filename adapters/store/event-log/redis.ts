/**
 * Redis EventLog: a counter (`<prefix>events:seq`, INCR) and a stream (`<prefix>events`) whose
 * entry ids are `<seq>-0`, trimmed with MAXLEN ~ capacity. Both steps run in one Lua script, so
 * seqs are unique and in stream order across processes, and survive restarts.
 */
import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../redis/client.ts';
import { asLoggedEvent, DEFAULT_EVENT_CAPACITY, DEFAULT_READ_LIMIT, type EventLog, type LoggedEvent, type Sequenced } from './port.ts';
import { redisScript } from '../redis/script.ts';

// KEYS: counter, stream; ARGV: event JSON, capacity.
const APPEND = redisScript(`
local seq = redis.call('INCR', KEYS[1])
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], seq .. '-0', 'e', ARGV[1])
return seq
`);

/** Options of the Redis event log. */
export interface RedisEventLogOptions<E extends LoggedEvent> {
  /** key prefix, e.g. `gw:` */
  prefix?: string;
  /** events kept (approximately: Redis trims whole stream nodes) */
  capacity?: number;
  /** validates a record read back (default: any object with a string `type`) */
  parse?: (raw: unknown) => E;
}

/** Keys of the event log under `prefix`: the seq counter and the stream (snapshot commits append to them too), and its epoch. */
export function redisEventLogKeys(prefix = 'gw:'): { counter: string; stream: string; epoch: string } {
  return { counter: `${prefix}events:seq`, stream: `${prefix}events`, epoch: `${prefix}events:epoch` };
}

/** Creates an event log on `redis` (the caller owns the connection). */
export function createRedisEventLog<E extends LoggedEvent>(redis: RedisClient, options: RedisEventLogOptions<E> = {}): EventLog<E> {
  const { counter: counterKey, stream: streamKey, epoch: epochKey } = redisEventLogKeys(options.prefix);
  const capacity = options.capacity ?? DEFAULT_EVENT_CAPACITY;
  const parse = options.parse ?? ((raw: unknown) => asLoggedEvent(raw) as E);

  return {
    async append(event) {
      const { seq: _ignored, ...fields } = event as E & { seq?: unknown };
      const seq = Number(await APPEND.run(redis, [counterKey, streamKey], [JSON.stringify(fields), capacity]));
      return { ...(fields as E), seq } as Sequenced<E>;
    },
    async readSince(since, limit = DEFAULT_READ_LIMIT) {
      const entries = await redis.xrange(streamKey, `${Math.max(0, Math.floor(since)) + 1}-0`, '+', 'COUNT', limit);
      return entries.map(([id, fields]) => {
        const json = fields[fields.indexOf('e') + 1];
        if (json === undefined) throw new Error(`event log entry ${id} has no payload`);
        return { ...parse(JSON.parse(json)), seq: Number(id.slice(0, id.indexOf('-'))) } as Sequenced<E>;
      });
    },
    async lastSeq() {
      return Number((await redis.get(counterKey)) ?? 0);
    },
    async firstSeq() {
      const [first] = await redis.xrange(streamKey, '-', '+', 'COUNT', 1);
      if (first) return Number(first[0].slice(0, first[0].indexOf('-')));
      return Number((await redis.get(counterKey)) ?? 0) + 1;
    },
    async epoch() {
      // a wiped Redis loses this key with the history: the next reader names a new epoch
      await redis.set(epochKey, randomUUID(), 'NX');
      return (await redis.get(epochKey)) ?? 'unknown';
    },
  };
}
