import { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import { createRedisPriceHistory } from './redis.ts';
import { describePriceHistory } from './contract.ts';
import { sharedTestRedis } from '../../../test/support/redis-prefix.ts';

const shared = sharedTestRedis();

describePriceHistory('redis', async (retention) => createRedisPriceHistory(shared.redis(), { prefix: shared.prefix(), retention }));

it('survives a restart: a new client on the same keys sees the same ticks', async () => {
  const prefix = shared.prefix();
  const first = new Redis(shared.url());
  await createRedisPriceHistory(first, { prefix }).append({ price: '150.12345678', ts: 1_763_700_000_000 });
  first.disconnect();
  const second = new Redis(shared.url());
  try {
    const h = createRedisPriceHistory(second, { prefix });
    expect(await h.latest()).toEqual({ price: '150.12345678', ts: 1_763_700_000_000 });
  } finally {
    second.disconnect();
  }
});
