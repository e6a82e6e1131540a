/**
 * The operator CLI's exchange commands against the shared test Redis written by the real
 * exchange (HTTP). Every command runs as a child process; its `--json` output is what is checked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisExchangeStore } from '../../../adapters/store/exchange/redis.ts';
import { startExchange, type RunningExchange } from '../../../bin/exchange-app.ts';
import { book } from '../../exchange/support.ts';
import { quietLog } from '../../support/quiet-log.ts';
import { sharedTestRedis } from '../../support/redis-prefix.ts';
import { hasStackTrace, runOps } from '../support.ts';
import { pushFeed } from './fixtures.ts';

const shared = sharedTestRedis();

describe('exchange commands on Redis', () => {
  let prefix: string;
  let env: Record<string, string>;
  let exchange: RunningExchange;
  let base: string;
  let accountId: string;
  const post = async (path: string, body: unknown) => {
    const res = await fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as any };
  };

  beforeAll(async () => {
    prefix = `${shared.prefix()}exchange`;
    env = { REDIS_URL: shared.url() };
    const feed = pushFeed();
    exchange = await startExchange({
      port: 0,
      mgmtPort: 0,
      bookMaxAgeMs: 30_000,
      feed,
      store: createRedisExchangeStore(shared.url(), prefix, quietLog),
      logger: quietLog,
    });
    base = `http://127.0.0.1:${exchange.port}`;
    feed.push(
      book(
        'BTCUSDT',
        [
          ['99.00', '1'],
          ['98.00', '2'],
        ],
        [
          ['100.00', '1'],
          ['101.00', '2'],
        ],
      ),
    );
    const created = await post('/api/v1/accounts', { name: 'ops-alice', initialCash: '10000' });
    expect(created.status).toBe(201);
    accountId = created.body.id;
    expect((await post(`/api/v1/accounts/${accountId}/orders`, { symbol: 'BTCUSDT', side: 'BUY', qty: '1.5' })).status).toBe(201);
    expect((await post(`/api/v1/accounts/${accountId}/orders`, { symbol: 'BTCUSDT', side: 'SELL', qty: '0.5' })).status).toBe(201);
    expect((await post(`/api/v1/accounts/${accountId}/deposits`, { amount: '250', reason: 'top-up' })).status).toBe(201);
  });

  afterAll(async () => {
    await exchange?.stop();
  });

  const ops = (args: string[]) => runOps([...args, '--exchange-prefix', prefix], env);

  it('accounts, orders (orderId, state) and order <accountId> <orderId>', async () => {
    const accounts = await ops(['accounts', '--json']);
    expect(accounts.code, accounts.stderr).toBe(0);
    expect(accounts.json()).toEqual([expect.objectContaining({ id: accountId, name: 'ops-alice', netDeposits: '250.0000000000', positions: ['BTCUSDT'] })]);

    const orders = await ops(['orders', accountId, '--json']);
    expect(orders.code, orders.stderr).toBe(0);
    const rows = orders.json();
    expect(rows).toHaveLength(2);
    expect(rows.map((r: any) => [r.side, r.state])).toEqual([
      ['SELL', 'filled'],
      ['BUY', 'filled'],
    ]);
    for (const r of rows) expect(r.orderId).toMatch(/^[0-9a-f-]{36}$/);

    const one = await ops(['order', accountId, rows[1].orderId, '--json']);
    expect(one.code, one.stderr).toBe(0);
    expect(one.json()).toMatchObject({
      orderId: rows[1].orderId,
      state: 'filled',
      status: 'FILLED',
      side: 'BUY',
      qty: '1.5000000000',
      fills: [{ price: '100.0000000000' }, { price: '101.0000000000' }],
    });

    const human = await ops(['orders', accountId]);
    expect(human.stdout).toContain(rows[0].orderId);

    const unknown = await ops(['order', accountId, 'no-such-order']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/no order no-such-order/);
    const noAccount = await ops(['orders', 'no-such-account']);
    expect(noAccount.code).not.toBe(0);
    expect(noAccount.stderr).toMatch(/no account no-such-account/);
    expect(hasStackTrace(unknown.stderr + noAccount.stderr)).toBe(false);
  });

  it('journal --replay-check agrees with the stored balances, and fails once a balance is corrupted', async () => {
    const good = await ops(['journal', accountId, '--replay-check', '--json']);
    expect(good.code, good.stderr).toBe(0);
    expect(good.json()).toEqual({ ok: true, accountId, entries: 4, differences: [] });

    const journal = await ops(['journal', accountId, '--json']);
    expect(journal.json().map((e: any) => e.type)).toEqual(['OPEN', 'TRADE', 'TRADE', 'DEPOSIT']);

    // a balance changed behind the journal's back
    await shared.redis().hset(`${prefix}:account:${accountId}`, 'cash', '1000000');
    const bad = await ops(['journal', accountId, '--replay-check', '--json']);
    expect(bad.code).not.toBe(0);
    const out = bad.json();
    expect(out).toMatchObject({ ok: false, accountId, entries: 4 });
    expect(out.differences).toEqual([expect.objectContaining({ field: 'cash', stored: '1000000.0000000000' })]);
    const human = await ops(['journal', accountId, '--replay-check']);
    expect(human.code).not.toBe(0);
    expect(human.stdout).toContain('does NOT replay');
  });
});
