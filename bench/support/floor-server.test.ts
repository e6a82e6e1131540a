/**
 * The floor service of the market-order benchmark (docs/operations.md#benchmarks), as its own
 * process on the test Redis: it answers an order with the given answer only once COMMIT has
 * stored the change, every commit passes the script's version guard (also for orders to one
 * account in flight together), and a body the exchange's schema refuses is a 400, not a commit.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedTestRedis } from '../../test/support/redis-prefix.ts';
import type { CommitText } from '../../adapters/store/exchange/redis.ts';
import { startFloorServer } from './stack.ts';

const shared = sharedTestRedis();
const accountIds = [randomUUID(), randomUUID()];
const change: CommitText = {
  cash: '999.8498',
  cashLocked: '0',
  netDeposits: '0',
  feesPaid: '0.00015',
  positions: { SOLUSDT: JSON.stringify({ qty: '0.001', costBasis: '0.15015', realizedPnl: '0' }) },
  journal: [['type', 'TRADE', 'orderId', 'o-1', 'symbol', 'SOLUSDT', 'side', 'BUY', 'qty', '0.001', 'gross', '0.15', 'fee', '0.00015']],
  order: JSON.stringify({ orderId: 'o-1', status: 'FILLED' }),
  equity: { score: '1763700000000', member: JSON.stringify({ ts: '2025-11-21T04:40:00.000Z', equity: '1000' }) },
  state: { id: 'o-1', json: JSON.stringify({ status: 'done', value: 'filled' }) },
};
const answer = JSON.stringify({ orderId: 'o-1', status: 'FILLED', qty: '0.0010000000' });
const ORDER = { symbol: 'SOLUSDT', side: 'BUY', qty: '0.001' };

let floor: Awaited<ReturnType<typeof startFloorServer>>;
let prefix: string;

beforeAll(async () => {
  prefix = shared.prefix().replace(/:$/, '');
  floor = await startFloorServer({ redisUrl: shared.url(), prefix, accountIds, change, answer });
});
afterAll(() => floor.stop());

const post = (id: string, body: unknown) =>
  fetch(`${floor.base}/api/v1/accounts/${id}/orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('floor service', () => {
  it('answers 201 with the given answer once COMMIT stored the change', async () => {
    const id = accountIds[0] as string;
    const res = await post(id, ORDER);
    expect(res.status).toBe(201);
    expect(await res.text()).toBe(answer);
    const redis = shared.redis();
    expect(await redis.lrange(`${prefix}:account:${id}:orders`, 0, -1)).toEqual([change.order]);
    expect(await redis.hget(`${prefix}:account:${id}`, 'cash')).toBe(change.cash);
    expect(await redis.hget(`${prefix}:account:${id}`, 'version')).toBe('2');
    expect(await redis.xlen(`${prefix}:account:${id}:journal`)).toBe(1);
  });

  it('passes the version guard for every order, also with many to one account in flight together', async () => {
    const id = accountIds[1] as string;
    const answers = await Promise.all(Array.from({ length: 40 }, () => post(id, ORDER).then((r) => r.status)));
    expect(answers).toEqual(Array.from({ length: 40 }, () => 201));
    const redis = shared.redis();
    expect(await redis.hget(`${prefix}:account:${id}`, 'version')).toBe('41');
    expect(await redis.llen(`${prefix}:account:${id}:orders`)).toBe(40);
    // each commit saved its order state under an order id of its own
    expect(await redis.hlen(`${prefix}:account:${id}:order-states`)).toBe(40);
  });

  it('refuses what the exchange order schema refuses, and an account it does not own, without committing', async () => {
    const id = accountIds[0] as string;
    const redis = shared.redis();
    const before = await redis.llen(`${prefix}:account:${id}:orders`);
    expect((await post(id, { ...ORDER, qty: 0.001 })).status).toBe(400);
    expect((await post(id, { ...ORDER, symbol: 'DOGEUSDT' })).status).toBe(400);
    expect((await post(randomUUID(), ORDER)).status).toBe(404);
    expect(await redis.llen(`${prefix}:account:${id}:orders`)).toBe(before);
  });
});
