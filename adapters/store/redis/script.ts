/**
 * Lua scripts run by SHA, loaded once on NOSCRIPT (ioredis `defineCommand` without mutating the
 * client). A script made with `{ deadline: true }` takes a deadline (unix ms) as its last ARGV
 * and refuses to write when Redis runs it later than that (error reply `DEADLINE`, which the
 * guarded client reports as RedisUnavailable): a write queued behind a stalled server never lands
 * after its caller has answered the client (docs/architecture.md#errors).
 * The deadline compares with Redis's clock (TIME), so the services and Redis need synchronised clocks.
 */
import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';

/** How long a request-path write may take before Redis must refuse to run it (below the 2 s command timeout). */
export const WRITE_BUDGET_MS = 1_500;

/** A deadline for a write that starts now. */
export const writeDeadline = (budgetMs = WRITE_BUDGET_MS, now = Date.now()): number => now + budgetMs;

/** A Lua script bound to its SHA1; `run` is atomic on the server. */
export interface RedisScript {
  /** Runs the script; a deadline script gets `deadlineMs` (default `writeDeadline()`) as its last ARGV. */
  run(redis: Redis | Cluster, keys: readonly string[], args: ReadonlyArray<string | number>, deadlineMs?: number): Promise<unknown>;
}

const DEADLINE_GUARD = `local __now = redis.call('TIME')
if tonumber(__now[1]) * 1000 + math.floor(tonumber(__now[2]) / 1000) > tonumber(ARGV[#ARGV]) then
  return redis.error_reply('DEADLINE the write ran after its deadline; nothing was written')
end
`;

/** Wraps `source` (Lua) for repeated atomic execution. */
export function redisScript(body: string, options: { deadline?: boolean } = {}): RedisScript {
  const source = options.deadline ? DEADLINE_GUARD + body : body;
  const sha = createHash('sha1').update(source).digest('hex');
  return {
    async run(redis, keys, args, deadlineMs) {
      const argv = options.deadline ? [...args, deadlineMs ?? writeDeadline()] : args;
      try {
        return await redis.evalsha(sha, keys.length, ...keys, ...argv);
      } catch (err) {
        if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
        return redis.eval(source, keys.length, ...keys, ...argv);
      }
    },
  };
}
