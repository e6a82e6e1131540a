/**
 * The operator CLI against real stores: the shared test Redis (a unique key prefix per suite)
 * written by the real bet runtime and the real exchange (HTTP), and the embedded DATA_DIR files.
 * Every command runs as a child process; its `--json` output is what is checked.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BookFeed, BookSnapshot } from '../../adapters/feed/port.ts';
import type { BetRecord } from '../../adapters/store/bet-history/port.ts';
import { createRedisBetHistory } from '../../adapters/store/bet-history/redis.ts';
import { openFileExchangeStore } from '../../adapters/store/exchange/file.ts';
import { createRedisExchangeStore } from '../../adapters/store/exchange/redis.ts';
import { openGatewayJournal } from '../../adapters/store/file/gateway-journal.ts';
import { createRedisSnapshotStore } from '../../adapters/store/snapshot/redis.ts';
import type { SnapshotStore } from '../../adapters/store/snapshot/port.ts';
import type { BetEmittedEvent } from '../../machines/bet-events.ts';
import type { BetInput } from '../../machines/bet-types.ts';
import { LiveBets } from '../../runtime/gateway/bets/live-bets.ts';
import type { BetEffects } from '../../runtime/gateway/bets/effects.ts';
import type { GatewayEvent } from '../../runtime/gateway/events/schemas.ts';
import { listenForRetryRequests, type RetryRequests } from '../../runtime/gateway/settlement/retry-requests.ts';
import { startExchange, type RunningExchange } from '../../bin/exchange-app.ts';
import { book } from '../exchange/support.ts';
import { quietLog } from '../support/quiet-log.ts';
import { sharedTestRedis } from '../support/redis-prefix.ts';
import { hasStackTrace, runOps, spawnOps } from './support.ts';

const shared = sharedTestRedis();
const BETTOR = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const NO_CHAIN = 'http://127.0.0.1:9'; // nothing listens: the chain view reports it

const betInput = (id: string, expireTime: number): BetInput => ({
  id,
  bettor: BETTOR,
  seq: id,
  side: 'UP',
  amountUnits: '100000000',
  entryPrice: '15000000000',
  expireTime,
});

/** Resolves once `check()` holds (polling), or fails after `timeoutMs`; for hooks, where expect.poll is not allowed. */
async function waitUntil(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !check(); await new Promise((r) => setTimeout(r, 20))) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
  }
}

/** Effects of a chain that is down: pricing fails every time (counted). */
function downChain() {
  const calls = { priceExit: 0 };
  const effects: BetEffects = {
    priceExit: async () => {
      calls.priceExit++;
      throw new Error('chain unreachable (test)');
    },
    closeOnChain: async () => Promise.reject(new Error('not in this test')),
    closeAndReplace: async () => Promise.reject(new Error('not in this test')),
  };
  return { calls, effects };
}

/** Bet runtime with a long retry backoff, so a failed chain waits until an operator retries it. */
async function betRuntime(store: SnapshotStore<BetEmittedEvent>, effects: BetEffects): Promise<LiveBets> {
  return LiveBets.boot({ store, effects, publish: () => undefined, retry: { baseMs: 600_000, maxMs: 600_000 }, log: quietLog });
}

/** A book feed the test pushes into. */
function pushFeed(): BookFeed & { push(b: BookSnapshot): void } {
  const listeners = new Set<(b: BookSnapshot) => void>();
  return {
    start: async () => undefined,
    stop: async () => undefined,
    onBook(l) {
      listeners.add(l);
      return () => void listeners.delete(l);
    },
    push: (b) => listeners.forEach((l) => l(b)),
  };
}

describe('gateway commands on Redis', () => {
  let prefix: string;
  let env: Record<string, string>;
  let runtime: LiveBets;
  let retries: RetryRequests;
  const chain = downChain();
  const nowS = () => Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    prefix = `${shared.prefix()}gw:`;
    env = { REDIS_URL: shared.url(), SOLANA_RPC_URL: NO_CHAIN };
    runtime = await betRuntime(createRedisSnapshotStore<BetEmittedEvent>(shared.redis(), { kind: 'bet', prefix }), chain.effects);
    runtime.open(betInput('101', nowS() - 5)); // expired: pricing fails, then waits in its backoff
    runtime.open(betInput('102', nowS() + 600)); // open for ten more minutes
    runtime.tick(Date.now());
    await waitUntil(() => chain.calls.priceExit === 1);
    await runtime.settled();
    retries = await listenForRetryRequests({
      redis: shared.redis(),
      prefix,
      dataDir: mkdtempSync(join(tmpdir(), 'ops-')),
      retry: (id) => runtime.retryNow(id),
      log: quietLog,
    });
  });

  afterAll(async () => {
    await retries?.stop();
    await runtime?.stop();
  });

  it('bets lists live series with id, bettor, state, attempt, lastError and age; --stuck and --state filter', async () => {
    const all = await runOps(['bets', '--json', '--gateway-prefix', prefix], env);
    expect(all.code, all.stderr).toBe(0);
    const rows = all.json();
    expect(rows.map((r: any) => r.id)).toEqual(['101', '102']);
    expect(rows[0]).toMatchObject({
      id: '101',
      bettor: BETTOR,
      state: 'settling.pricingBackoff',
      attempt: 1,
      lastError: expect.stringContaining('chain unreachable'),
      stuck: true,
    });
    expect(rows[0].age).toBeGreaterThanOrEqual(5);
    expect(rows[1]).toMatchObject({ id: '102', state: expect.stringMatching(/^open/), attempt: 0, lastError: null, stuck: false });
    expect(rows[1].age).toBeLessThan(0);

    const stuck = await runOps(['--gateway-prefix', prefix, 'bets', '--stuck', '--json'], env);
    expect(stuck.json().map((r: any) => r.id)).toEqual(['101']);
    const open = await runOps(['bets', '--state', 'open', '--json', '--gateway-prefix', prefix], env);
    expect(open.json().map((r: any) => r.id)).toEqual(['102']);

    const human = await runOps(['bets', '--gateway-prefix', prefix], env);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain('settling.pricingBackoff');
  });

  it('bet <id> shows the persisted snapshot, the chain read (unreachable here) and evidence null', async () => {
    const r = await runOps(['bet', '101', '--json', '--gateway-prefix', prefix], env);
    expect(r.code, r.stderr).toBe(0);
    const out = r.json();
    expect(out.snapshot).toMatchObject({ status: 'active', value: { settling: 'pricingBackoff' }, context: { seriesId: '101', id: '101', attempt: 1 } });
    expect(out.chain).toBeNull();
    expect(out.chainError).toContain('127.0.0.1:9');
    expect(out.evidence).toBeNull();
  });

  it('bet <id> shows the settlement evidence the gateway recorded in its bet history', async () => {
    const history = createRedisBetHistory(shared.redis(), { prefix });
    const tick = { price: 15000000500, ts: Date.now() - 1_000 };
    await history.put({
      id: '102',
      bettor: BETTOR,
      side: 'UP',
      amountUnits: '100000000',
      entryPrice: 15000000000,
      exitPrice: tick.price,
      status: 1,
      expireTime: Math.floor(tick.ts / 1000),
      openedAt: tick.ts - 15_000,
      closedAt: tick.ts + 500,
      netUnits: '30000000',
      entry: { price: 15000000000, ts: tick.ts - 15_000, source: 'nats' },
      exit: { price: tick.price, ts: tick.ts, source: 'nats', rule: 'last_tick_at_or_before_expiry', reason: 'the last tick at or before the expiry' },
      ticks: [tick],
      placeTx: 'place-sig',
      closeTx: 'close-sig',
      prevId: null,
      nextId: null,
    } satisfies BetRecord);
    const r = await runOps(['bet', '102', '--json', '--gateway-prefix', prefix], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().evidence).toMatchObject({
      exit: { price: tick.price, ts: tick.ts, rule: 'last_tick_at_or_before_expiry' },
      ticks: [tick],
      placeTx: 'place-sig',
      closeTx: 'close-sig',
    });
  });

  it('retry <id> wakes the chain in the running runtime: it retries at once instead of after its backoff', async () => {
    const r = await runOps(['retry', '101', '--json', '--gateway-prefix', prefix], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ ok: true, id: '101', via: 'redis', receivers: 1 });
    await expect.poll(() => chain.calls.priceExit, { timeout: 5_000 }).toBe(2);
  });

  it('events --since lists seq and type; --follow prints new events as they come', async () => {
    const r = await runOps(['events', '--since', '0', '--json', '--gateway-prefix', prefix], env);
    expect(r.code, r.stderr).toBe(0);
    const events = r.json();
    expect(events.filter((e: any) => e.type === 'bet_open').map((e: any) => e.id)).toEqual(['101', '102']);
    for (const e of events) expect(e.seq).toEqual(expect.any(Number));
    const last = events[events.length - 1].seq as number;

    const follower = spawnOps(['events', '--since', String(last), '--follow', '--json', '--gateway-prefix', prefix], env);
    let out = '';
    follower.stdout?.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((resolve) => follower.on('close', (code) => resolve(code)));
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // it is polling
    runtime.open(betInput('103', nowS() + 600));
    await runtime.settled();
    await expect.poll(() => out, { timeout: 10_000 }).toContain('"bet_open"');
    follower.kill('SIGTERM');
    expect(await exited).toBe(0);
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: 'bet_open', id: '103', seq: last + 1 });
  });

  it('user mistakes and unreachable Redis: one clear line, non-zero exit, no stack trace', async () => {
    const cases = [
      { args: ['bet', '999', '--gateway-prefix', prefix], env, message: /no bet series 999/ },
      { args: ['retry', '999', '--gateway-prefix', prefix], env, message: /no bet series 999/ },
      { args: ['bet', 'abc'], env, message: /bet id/ },
      { args: ['events', '--since', '-1'], env, message: /seq/ },
      { args: ['bets'], env: { REDIS_URL: 'redis://127.0.0.1:1' }, message: /cannot reach Redis at redis:\/\/127\.0\.0\.1:1/ },
      { args: ['accounts'], env: { REDIS_URL: 'redis://127.0.0.1:1' }, message: /cannot reach Redis/ },
      { args: ['no-such-command'], env, message: /unknown command/ },
    ];
    const runs = await Promise.all(cases.map((c) => runOps(c.args, c.env)));
    runs.forEach((r, i) => {
      const c = cases[i]!;
      expect(r.code, c.args.join(' ')).not.toBe(0);
      expect(r.stderr, c.args.join(' ')).toMatch(c.message);
      expect(hasStackTrace(r.stderr + r.stdout), c.args.join(' ')).toBe(false);
    });
  });
});

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

describe('embedded stores in DATA_DIR', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ops-data-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the gateway journal and the exchange ledger files, and hands retries over through the request folder', async () => {
    const journal = openGatewayJournal<GatewayEvent, BetEmittedEvent>(join(dir, 'gateway', 'journal.log'));
    const chain = downChain();
    const runtime = await betRuntime(journal.snapshots, chain.effects);
    runtime.open(betInput('201', Math.floor(Date.now() / 1000) - 5));
    runtime.tick(Date.now());
    await expect.poll(() => chain.calls.priceExit).toBe(1);
    await runtime.settled();
    const retries = await listenForRetryRequests({ redis: null, prefix: 'gw:', dataDir: dir, retry: (id) => runtime.retryNow(id), log: quietLog, pollMs: 100 });

    const ledger = openFileExchangeStore(join(dir, 'exchange', 'ledger.log'));
    const feed = pushFeed();
    const exchange = await startExchange({ port: 0, mgmtPort: 0, bookMaxAgeMs: 30_000, feed, store: ledger, logger: quietLog });
    try {
      const res = await fetch(`http://127.0.0.1:${exchange.port}/api/v1/accounts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'ops-file', initialCash: '500' }),
      });
      const accountId = ((await res.json()) as { id: string }).id;
      const env = { DATA_DIR: dir, SOLANA_RPC_URL: NO_CHAIN };

      const bets = await runOps(['bets', '--stuck', '--json'], env);
      expect(bets.code, bets.stderr).toBe(0);
      expect(bets.json()).toEqual([expect.objectContaining({ id: '201', state: 'settling.pricingBackoff', attempt: 1 })]);
      const events = await runOps(['events', '--json'], env);
      expect(events.json()).toEqual([expect.objectContaining({ type: 'bet_open', id: '201', seq: 1 })]);

      const retry = await runOps(['retry', '201', '--json'], env);
      expect(retry.code, retry.stderr).toBe(0);
      expect(retry.json()).toMatchObject({ ok: true, via: 'file', receivers: 1 });
      await expect.poll(() => chain.calls.priceExit, { timeout: 5_000 }).toBe(2);

      const accounts = await runOps(['accounts', '--json'], env);
      expect(accounts.json()).toEqual([expect.objectContaining({ id: accountId, name: 'ops-file', cash: '500.0000000000' })]);
      const check = await runOps(['journal', accountId, '--replay-check', '--json'], env);
      expect(check.code, check.stderr).toBe(0);
      expect(check.json()).toMatchObject({ ok: true, entries: 1 });
    } finally {
      await exchange.stop();
      await retries.stop();
      await runtime.stop();
      await journal.close();
    }

    // nobody listens any more: the request is refused, not left behind
    const orphan = await runOps(['retry', '201'], { DATA_DIR: dir });
    expect(orphan.code).not.toBe(0);
    expect(orphan.stderr).toMatch(/no running gateway/);
  });
});
