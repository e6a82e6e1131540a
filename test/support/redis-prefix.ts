/** Test helper: a client on the shared test Redis plus a unique key prefix per call (no FLUSHDB on a shared server). */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, inject } from 'vitest';

/** One client per test file, closed after the file; `prefix()` gives a fresh key namespace. */
export function sharedTestRedis(): { redis: () => Redis; prefix: () => string; url: () => string } {
  let client: Redis | undefined;
  const keys: string[] = [];
  afterAll(async () => {
    if (!client) return;
    for (const p of keys) {
      const found = await client.keys(`${p}*`);
      if (found.length) await client.del(...found);
    }
    client.disconnect();
  });
  return {
    url: () => inject('redisUrl'),
    redis: () => (client ??= new Redis(inject('redisUrl'), { lazyConnect: false })),
    prefix: () => {
      const p = `test:${randomUUID()}:`;
      keys.push(p);
      return p;
    },
  };
}
