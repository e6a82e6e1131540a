/**
 * Redis `SnapshotStore`. Layout, readable by an operator with redis-cli:
 *   `<prefix><kind>:<id>`      string, the snapshot as JSON (a final one expires after `finalTtlSeconds`)
 *   `<prefix><kind>:<id>:rev`  the rev of the commit that wrote it (expires with a final snapshot)
 *   `<prefix><kind>s:live`     set of the ids whose snapshot is live (rehydrated at boot)
 * and the events of each commit go to the event log under the same prefix (`../event-log/redis.ts`).
 * The records a commit carries are written where their `RedisRecordLayout` says (for bets: the
 * history, `../bet-history/redis.ts`). A commit is one Lua script (snapshot, rev, live set, seq
 * counter, stream, records), so the snapshot, the live set, the events and the records never
 * disagree, across processes too.
 *
 * @example
 *   const store = createRedisSnapshotStore(redis, { kind: 'bet', prefix: 'gw:' }); // keys gw:bet:<id>, set gw:bets:live
 */
import type { RedisClient } from '../redis/client.ts';
import { DEFAULT_EVENT_CAPACITY, type LoggedEvent, type Sequenced } from '../event-log/port.ts';
import { redisEventLogKeys } from '../event-log/redis.ts';
import { awaitReplicas, NO_REPLICA_WAIT, type Durability } from '../redis/durability.ts';
import { redisScript } from '../redis/script.ts';
import { parseOrNull, type CommitResult, type SnapshotCommit, type SnapshotStore, type StoredSnapshot } from './port.ts';

// KEYS: snapshot, rev, live set, seq counter, stream, then per record its key and its index keys.
// ARGV: id, json, final (1|0), final ttl s, rev, capacity, events JSON array, record count, then per
// record: value, index entry count, (score, member) per entry.
const COMMIT = redisScript(`
local stored = tonumber(redis.call('GET', KEYS[2]) or '0')
if tonumber(ARGV[5]) <= stored then return {'dup'} end
if ARGV[3] == '1' then
  redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[4])
  redis.call('SET', KEYS[2], ARGV[5], 'EX', ARGV[4])
  redis.call('SREM', KEYS[3], ARGV[1])
else
  redis.call('SET', KEYS[1], ARGV[2])
  redis.call('SET', KEYS[2], ARGV[5])
  redis.call('SADD', KEYS[3], ARGV[1])
end
local seqs = {}
for _, e in ipairs(cjson.decode(ARGV[7])) do
  local seq = redis.call('INCR', KEYS[4])
  redis.call('XADD', KEYS[5], 'MAXLEN', '~', ARGV[6], seq .. '-0', 'e', e)
  seqs[#seqs + 1] = seq
end
local k, a = 6, 9
for _ = 1, tonumber(ARGV[8]) do
  redis.call('SET', KEYS[k], ARGV[a])
  local entries = tonumber(ARGV[a + 1])
  k, a = k + 1, a + 2
  for _ = 1, entries do
    redis.call('ZADD', KEYS[k], ARGV[a], ARGV[a + 1])
    k, a = k + 1, a + 2
  end
end
return seqs
`);

/** Where a record a commit carries goes: a string key holding it, and sorted-set entries indexing it. */
export interface RedisRecordWrite {
  key: string;
  value: string;
  index: ReadonlyArray<{ key: string; score: number; member: string }>;
}

/** How records of type R are laid out in Redis (their adapter knows; the snapshot store writes them). */
export interface RedisRecordLayout<R> {
  writeOf(record: R): RedisRecordWrite;
}

/** Naming and retention of one kind of actor in Redis. */
export interface RedisSnapshotOptions {
  /** actor kind, e.g. `bet` */
  kind: string;
  /** prepended to every key, the event log's too (tests use a unique one) */
  prefix?: string;
  /** how long a final snapshot stays readable; default 7 days */
  finalTtlSeconds?: number;
  /** events the log keeps (approximately) */
  eventCapacity?: number;
  /** replicas a commit waits for before it counts as done (docs/operations.md#redis-with-sentinel) [none] */
  durability?: Durability;
}

/** Options of a store whose commits carry records. */
export interface RedisSnapshotRecordOptions<R> extends RedisSnapshotOptions {
  records: RedisRecordLayout<R>;
}

/** Snapshots of one actor kind in Redis; does not own the connection unless `close` is called. */
export class RedisSnapshotStore<E extends LoggedEvent = LoggedEvent, R = never> implements SnapshotStore<E, R> {
  private readonly keyPrefix: string;
  private readonly liveKey: string;
  private readonly finalTtl: number;
  private readonly events: { counter: string; stream: string };
  private readonly capacity: number;
  private readonly layout: RedisRecordLayout<R> | null;
  private readonly durability: Durability;

  constructor(
    private readonly redis: RedisClient,
    options: RedisSnapshotOptions | RedisSnapshotRecordOptions<R>,
  ) {
    this.layout = 'records' in options ? options.records : null;
    const prefix = options.prefix ?? '';
    this.keyPrefix = `${prefix}${options.kind}:`;
    this.liveKey = `${prefix}${options.kind}s:live`;
    this.finalTtl = options.finalTtlSeconds ?? 7 * 24 * 3600;
    this.events = redisEventLogKeys(prefix);
    this.capacity = options.eventCapacity ?? DEFAULT_EVENT_CAPACITY;
    this.durability = options.durability ?? NO_REPLICA_WAIT;
  }

  /** The Redis key of one snapshot. */
  keyOf(id: string): string {
    return `${this.keyPrefix}${id}`;
  }

  async commit(id: string, change: SnapshotCommit<E, R>): Promise<CommitResult<E>> {
    const fields = change.events.map((e) => {
      const { seq: _ignored, ...rest } = e as E & { seq?: unknown };
      return rest as E;
    });
    const keys = [this.keyOf(id), `${this.keyOf(id)}:rev`, this.liveKey, this.events.counter, this.events.stream];
    const args: Array<string | number> = [
      id,
      change.json ?? JSON.stringify(change.snapshot),
      change.final ? '1' : '0',
      this.finalTtl,
      change.rev,
      this.capacity,
      JSON.stringify(fields.map((f) => JSON.stringify(f))),
    ];
    const records = change.records ?? [];
    if (records.length > 0 && !this.layout) throw new Error('this snapshot store was made without a record layout; it cannot write records');
    args.push(records.length);
    for (const record of records) {
      const w = (this.layout as RedisRecordLayout<R>).writeOf(record);
      keys.push(w.key);
      args.push(w.value, w.index.length);
      for (const entry of w.index) {
        keys.push(entry.key);
        args.push(entry.score, entry.member);
      }
    }
    const out = await COMMIT.run(this.redis, keys, args);
    if (!Array.isArray(out)) throw new Error(`snapshot commit answered ${JSON.stringify(out)}`);
    // a retried commit ('dup') waits too: it confirms the write an earlier attempt made
    await awaitReplicas(this.redis, this.durability);
    if (out[0] === 'dup') return { applied: false };
    return { applied: true, events: fields.map((f, i) => ({ ...f, seq: Number(out[i]) }) as Sequenced<E>) };
  }

  async load(id: string): Promise<unknown | null> {
    const json = await this.redis.get(this.keyOf(id));
    return json === null ? null : (JSON.parse(json) as unknown);
  }

  async loadLive(except?: ReadonlySet<string>): Promise<StoredSnapshot[]> {
    const ids = (await this.redis.smembers(this.liveKey)).filter((id) => !except?.has(id));
    if (ids.length === 0) return [];
    const values = await this.redis.mget(ids.flatMap((id) => [this.keyOf(id), `${this.keyOf(id)}:rev`]));
    const out: StoredSnapshot[] = [];
    ids.forEach((id, i) => {
      const json = values[2 * i];
      if (json !== null && json !== undefined) out.push({ id, snapshot: parseOrNull(json), rev: Number(values[2 * i + 1] ?? 0) || 0 });
    });
    return out;
  }

  async isLive(id: string): Promise<boolean> {
    return (await this.redis.sismember(this.liveKey, id)) === 1;
  }

  async close(): Promise<void> {
    await this.redis.quit();
  }
}

/** A snapshot store of one actor kind on `redis` (the caller owns the connection); `records` lays out the records commits carry. */
export function createRedisSnapshotStore<E extends LoggedEvent = LoggedEvent, R = never>(
  redis: RedisClient,
  options: RedisSnapshotOptions | RedisSnapshotRecordOptions<R>,
): SnapshotStore<E, R> {
  return new RedisSnapshotStore<E, R>(redis, options);
}
