/**
 * Redis `SnapshotStore`. Layout, readable by an operator with redis-cli:
 *   `<prefix><kind>:<id>`     string, the snapshot as JSON (a final one expires after `finalTtlSeconds`)
 *   `<prefix><kind>s:live`    set of the ids whose snapshot is live (rehydrated at boot)
 * Each save is one MULTI, so the record and the live set never disagree.
 *
 * @example
 *   const store = new RedisSnapshotStore(redis, { kind: 'bet' }); // keys bet:<id>, set bets:live
 */
import type { Redis } from 'ioredis';
import { parseOrNull, type SnapshotStore, type StoredSnapshot } from './snapshot-port.ts';

/** Naming and retention of one kind of actor in Redis. */
export interface RedisSnapshotOptions {
  /** actor kind, e.g. `bet` */
  kind: string;
  /** prepended to every key (tests use a unique one) */
  prefix?: string;
  /** how long a final snapshot stays readable; default 7 days */
  finalTtlSeconds?: number;
}

/** Snapshots of one actor kind in Redis; does not own the connection unless `close` is called. */
export class RedisSnapshotStore implements SnapshotStore {
  private readonly keyPrefix: string;
  private readonly liveKey: string;
  private readonly finalTtl: number;

  constructor(
    private readonly redis: Redis,
    options: RedisSnapshotOptions,
  ) {
    const prefix = options.prefix ?? '';
    this.keyPrefix = `${prefix}${options.kind}:`;
    this.liveKey = `${prefix}${options.kind}s:live`;
    this.finalTtl = options.finalTtlSeconds ?? 7 * 24 * 3600;
  }

  /** The Redis key of one snapshot. */
  keyOf(id: string): string {
    return `${this.keyPrefix}${id}`;
  }

  async save(id: string, snapshot: unknown, final: boolean): Promise<void> {
    const json = JSON.stringify(snapshot);
    const tx = this.redis.multi();
    if (final) tx.set(this.keyOf(id), json, 'EX', this.finalTtl).srem(this.liveKey, id);
    else tx.set(this.keyOf(id), json).sadd(this.liveKey, id);
    const results = await tx.exec();
    const failure = results?.find(([err]) => err !== null)?.[0];
    if (failure) throw failure;
  }

  async load(id: string): Promise<unknown | null> {
    const json = await this.redis.get(this.keyOf(id));
    return json === null ? null : (JSON.parse(json) as unknown);
  }

  async loadLive(): Promise<StoredSnapshot[]> {
    const ids = await this.redis.smembers(this.liveKey);
    if (ids.length === 0) return [];
    const jsons = await this.redis.mget(ids.map((id) => this.keyOf(id)));
    const out: StoredSnapshot[] = [];
    ids.forEach((id, i) => {
      const json = jsons[i];
      if (json !== null && json !== undefined) out.push({ id, snapshot: parseOrNull(json) });
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
