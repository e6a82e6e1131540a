/**
 * The exchange's native API, black box, with the ledger on a Redis Cluster of three masters
 * (`REDIS_CLUSTER_NODES`, each account's keys under its id as hash tag:
 * docs/operations.md#redis-cluster): the same suite as on one server (`native-api.suite.ts`), then
 * where the ledger went, and the ops CLI's exchange commands (docs/operations.md#ops-cli) on it.
 */
import { Cluster } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { runOps } from '../ops/support.ts';
import { describeNativeApi } from './native-api.suite.ts';

const t = describeNativeApi({ redis: 'cluster' });
const cluster = (): Cluster => {
  if (!(t.redis instanceof Cluster)) throw new Error('the suite runs on one server, not a cluster');
  return t.redis;
};

describe('the ledger on a Redis Cluster', () => {
  it("keeps each account's keys in its own slot (tagged by its id), the accounts spread over every master", async () => {
    const ids = await cluster().zrange(t.keys.accounts, '0', '-1');
    expect(ids.length).toBeGreaterThan(20);
    const masters = cluster().nodes('master');
    expect(masters).toHaveLength(3);
    const held = await Promise.all(masters.map((m) => m.keys('exchange:account:*')));
    const tagged = /^exchange:account:\{([0-9a-f-]{36})\}(:[a-z-]+)?$/;
    for (const key of held.flat()) expect(key).toMatch(tagged);
    // each account lives on one master, all of its keys with it
    const homes = new Map<string, Set<number>>();
    held.forEach((keys, master) => {
      for (const key of keys) {
        const id = tagged.exec(key)?.[1] ?? '';
        homes.set(id, (homes.get(id) ?? new Set()).add(master));
      }
    });
    expect([...homes.keys()].sort()).toEqual([...ids].sort());
    for (const [, where] of homes) expect(where.size).toBe(1);
    const perMaster = [0, 1, 2].map((m) => [...homes.values()].filter((w) => w.has(m)).length);
    expect(perMaster.every((n) => n > 0)).toBe(true);
  });
});

describe('the ops CLI on the same cluster', () => {
  it('accounts, orders, order and journal --replay-check read the ledger, and the check fails on a corrupted balance', async () => {
    const env = { REDIS_CLUSTER_NODES: t.redisEnv.REDIS_CLUSTER_NODES ?? '' };
    const ops = (args: string[]) => runOps(args, env);
    const id = await t.openAccount('ops-on-cluster');
    expect((await t.order(id, 'BTCUSDT', 'BUY', '1.5')).status).toBe(201);
    expect((await t.order(id, 'BTCUSDT', 'SELL', '0.5')).status).toBe(201);
    expect((await t.api.post(`/api/v1/accounts/${id}/deposits`, { amount: '250' })).status).toBe(201);

    // the CLI runs are child processes: those that do not wait for each other run together
    const [accounts, orders, check] = await Promise.all([
      ops(['accounts', '--json']),
      ops(['orders', id, '--json']),
      ops(['journal', id, '--replay-check', '--json']),
    ]);
    expect(accounts.code, accounts.stderr).toBe(0);
    const listed = (await t.api.get('/api/v1/accounts')).body.map((a: { id: string }) => a.id);
    expect(
      accounts
        .json()
        .map((a: { id: string }) => a.id)
        .sort(),
    ).toEqual([...listed].sort());
    expect(accounts.json()).toContainEqual(expect.objectContaining({ id, name: 'ops-on-cluster', netDeposits: '250.0000000000', positions: ['BTCUSDT'] }));

    expect(orders.code, orders.stderr).toBe(0);
    expect(orders.json().map((r: { side: string; state: string }) => [r.side, r.state])).toEqual([
      ['SELL', 'filled'],
      ['BUY', 'filled'],
    ]);
    expect(check.code, check.stderr).toBe(0);
    expect(check.json()).toEqual({ ok: true, accountId: id, entries: 4, differences: [] });

    const buy = orders.json()[1].orderId as string;
    await cluster().hset(t.keys.account(id).account, 'cash', '1000000'); // a balance changed behind the journal's back
    const [one, bad] = await Promise.all([ops(['order', id, buy, '--json']), ops(['journal', id, '--replay-check', '--json'])]);
    expect(one.code, one.stderr).toBe(0);
    expect(one.json()).toMatchObject({ orderId: buy, state: 'filled', side: 'BUY', qty: '1.5000000000' });
    expect(bad.code).not.toBe(0);
    expect(bad.json()).toMatchObject({ ok: false, accountId: id, entries: 4, differences: [expect.objectContaining({ field: 'cash' })] });
  });
});
