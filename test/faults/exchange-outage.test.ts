/**
 * The exchange while its Redis is down (docs/architecture.md#errors: a dependency outage is a 503
 * with Retry-After within a bounded deadline; a request either commits or reports failure, never
 * commits after answering): Redis SIGKILLed, then SIGSTOPped (the worst case: connections stay
 * open, nothing answers). Every route answers 503 REDIS_UNAVAILABLE with Retry-After within the
 * deadline, health says DOWN, nothing asked for during the outage is there afterwards, and once
 * Redis is back the exchange works again without a restart and every journal replays to its
 * balances.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayJournal } from '../../machines/exchange/journal.ts';
import { request, sleep } from '../support/fault-world.ts';
import { managedRedis, managedService, type Managed } from '../support/managed.ts';
import { freePort } from '../support/servers.ts';
import { journalIn } from '../exchange/harness.ts';

let redis: Managed & { url: string };
let exchange: Managed;
let base = '';
let mgmt = '';

beforeAll(async () => {
  redis = await managedRedis();
  const [port, mgmtPort] = [await freePort(), await freePort()];
  exchange = managedService(
    'exchange',
    { EXCHANGE_PORT: String(port), EXCHANGE_MGMT_PORT: String(mgmtPort), REDIS_URL: redis.url, EXCHANGE_FEED: 'synthetic', NATS_URL: '' },
    mgmtPort,
  );
  await exchange.start();
  base = `http://127.0.0.1:${port}`;
  mgmt = `http://127.0.0.1:${mgmtPort}`;
}, 120_000);
afterAll(async () => {
  await exchange?.stop();
  await redis?.stop();
});

/** Every route of the exchange, with a body where it takes one. */
const routes = (id: string, n: number) =>
  [
    ['POST', '/api/v1/accounts', { name: `during-outage-${n}`, initialCash: '100' }],
    ['POST', `/api/v1/accounts/${id}/deposits`, { amount: '7' }],
    ['PUT', `/api/v1/accounts/${id}/cash`, { target: '123.45' }],
    ['POST', `/api/v1/accounts/${id}/orders`, { symbol: 'SOLUSDT', side: 'BUY', qty: '0.01' }],
    ['GET', `/api/v1/accounts/${id}`, undefined],
    ['GET', '/api/v1/accounts', undefined],
    ['GET', `/api/v1/accounts/${id}/pnl`, undefined],
    ['GET', `/api/v1/accounts/${id}/positions`, undefined],
    ['GET', `/api/v1/accounts/${id}/orders`, undefined],
    ['GET', `/api/v1/accounts/${id}/equity?snapshot=true`, undefined],
    ['DELETE', `/api/v1/accounts/${id}`, undefined],
  ] as const;

async function expectOutageAnswers(id: string, label: string): Promise<void> {
  let n = 0;
  for (const [method, path, body] of routes(id, n++)) {
    const r = await request(base, method, path, body, 10_000);
    expect({ status: r.status, error: r.body?.error, retryAfter: r.headers?.get('retry-after') }, `${label}: ${method} ${path}`).toEqual({
      status: 503,
      error: 'REDIS_UNAVAILABLE',
      retryAfter: '2',
    });
    expect(r.body.message, `${label}: ${method} ${path}`).toMatch(/redis/);
    // the deadline is 2 s; the bound leaves room for this shared machine
    expect(r.ms, `${label}: ${method} ${path} took ${r.ms} ms`).toBeLessThan(4_000);
  }
  const health = await request(mgmt, 'GET', '/actuator/health');
  expect(health.status).toBe(503);
  expect(health.body.status).toBe('DOWN');
}

describe('exchange with its Redis down', () => {
  it('answers 503 REDIS_UNAVAILABLE quickly on every route, commits nothing, and recovers by itself', async () => {
    const acct = await request(base, 'POST', '/api/v1/accounts', { name: 'before', initialCash: '1000' });
    expect(acct.status).toBe(201);
    const id = acct.body.id as string;
    expect((await request(base, 'POST', `/api/v1/accounts/${id}/orders`, { symbol: 'SOLUSDT', side: 'BUY', qty: '0.5' })).status).toBe(201);
    const cashBefore = (await request(base, 'GET', `/api/v1/accounts/${id}`)).body.cash;

    await redis.kill();
    await expectOutageAnswers(id, 'redis killed');
    await redis.start();
    await expect.poll(async () => (await request(mgmt, 'GET', '/actuator/health')).status, { timeout: 10_000 }).toBe(200);
    expect((await request(base, 'GET', `/api/v1/accounts/${id}`)).body.cash).toBe(cashBefore);

    // paused: the sockets stay open and requests reach Redis, which runs them only after the deadline
    redis.pause();
    await expectOutageAnswers(id, 'redis paused');
    redis.resume();
    await expect.poll(async () => (await request(mgmt, 'GET', '/actuator/health')).status, { timeout: 10_000 }).toBe(200);
    await sleep(500);

    // nothing asked for during either outage was written
    const accounts = await request(base, 'GET', '/api/v1/accounts');
    expect(accounts.body.map((a: { name: string }) => a.name)).toEqual(['before']);
    const after = await request(base, 'GET', `/api/v1/accounts/${id}`);
    expect(after.body.cash).toBe(cashBefore);
    expect((await request(base, 'GET', `/api/v1/accounts/${id}/orders`)).body).toHaveLength(1);

    // working again, without a restart, and the journal still replays to the balances
    const order = await request(base, 'POST', `/api/v1/accounts/${id}/orders`, { symbol: 'SOLUSDT', side: 'BUY', qty: '0.25' });
    expect(order.status).toBe(201);
    const r = new Redis(redis.url);
    const replayed = replayJournal(await journalIn(r, id));
    await r.quit();
    expect(replayed.cash.toFixed(10)).toBe(order.body.cash);
  }, 120_000);
});
