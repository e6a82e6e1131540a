/** Runs a Lua script by SHA, loading it once on NOSCRIPT (ioredis `defineCommand` without mutating the client). */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/** A Lua script bound to its SHA1; `run` is atomic on the server. */
export interface RedisScript {
  run(redis: Redis, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<unknown>;
}

/** Wraps `source` (Lua) for repeated atomic execution. */
export function redisScript(source: string): RedisScript {
  const sha = createHash('sha1').update(source).digest('hex');
  return {
    async run(redis, keys, args) {
      try {
        return await redis.evalsha(sha, keys.length, ...keys, ...args);
      } catch (err) {
        if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
        return redis.eval(source, keys.length, ...keys, ...args);
      }
    },
  };
}
