/**
 * Noticing that the Redis behind a connection is another server than before
 * (docs/operations.md#redis-with-sentinel): after a Sentinel failover the client reconnects to the
 * promoted replica, which may miss the last writes the old primary acknowledged. Every (re)connect
 * reads the server's `run_id`; a different one than the last connection's means a failover (or a
 * restarted server), and `onChange` runs, so the service can rebuild what Redis may have lost.
 *
 * @example
 *   const stop = watchServerChanges(redis, (c) => reconcile(c), log);
 */
import { Cluster, type Redis } from 'ioredis';
import type { RedisClient } from './client.ts';
import type { Logger } from '../../../kernel/log.ts';

/** The server behind the connection changed. */
export interface ServerChange {
  from: string;
  to: string;
}

/** The `run_id` of the server the connection is on. */
export async function serverRunId(redis: Redis): Promise<string> {
  const info = await redis.info('server');
  const m = /^run_id:([0-9a-f]+)\s*$/m.exec(info);
  if (!m) throw new Error('INFO server has no run_id');
  return m[1] as string;
}

/** Calls `onChange` whenever a (re)connect lands on another server than the previous one; returns a function that stops watching. */
export function watchServerChanges(client: RedisClient, onChange: (change: ServerChange) => void, log: Logger): () => void {
  // a cluster fails over master by master, each promoting its own replica: not watched (docs/operations.md#redis-cluster)
  if (client instanceof Cluster) return () => undefined;
  const redis: Redis = client;
  let known: string | null = null;
  let reading = false;
  let again = false;
  const read = async (): Promise<void> => {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      const now = await serverRunId(redis);
      const was = known;
      known = now;
      if (was !== null && was !== now) {
        log.warn({ from: was, to: now }, 'redis is another server than before (failover or restart): what it may have lost is rebuilt');
        onChange({ from: was, to: now });
      }
    } catch (err) {
      log.debug({ err: err instanceof Error ? err.message : String(err) }, 'redis run id not read');
    } finally {
      reading = false;
    }
    if (again) {
      again = false;
      await read();
    }
  };
  const onReady = () => void read().catch(() => undefined);
  redis.on('ready', onReady);
  if (redis.status === 'ready') onReady();
  return () => void redis.off('ready', onReady);
}
