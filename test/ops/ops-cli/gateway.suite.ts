/**
 * The operator CLI's gateway commands against Redis, with records written by the real bet
 * runtime: run by `gateway.test.ts` (the shared test Redis, a unique key prefix per suite) and
 * `gateway-cluster.test.ts` (a Redis Cluster, the gateway's cluster prefix `{gw}:`). Every
 * command runs as a child process; its `--json` output is what is checked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BetRecord } from '../../../adapters/store/bet-history/port.ts';
import { createRedisBetHistory } from '../../../adapters/store/bet-history/redis.ts';
import { createRedisSnapshotStore } from '../../../adapters/store/snapshot/redis.ts';
import { createRedisIntentStore } from '../../../adapters/store/intents/redis.ts';
import type { BetEmittedEvent } from '../../../machines/bet-events.ts';
import type { LiveBets } from '../../../runtime/gateway/bets/live-bets.ts';
import { listenForRetryRequests, type RetryRequests } from '../../../runtime/gateway/settlement/retry-requests.ts';
import type { RedisClient } from '../../../adapters/store/redis/client.ts';
import { quietLog } from '../../support/quiet-log.ts';
import { hasStackTrace, runOps, spawnOps } from '../support.ts';
import { BETTOR, NO_CHAIN, betInput, waitUntil, downChain, betRuntime } from './fixtures.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { tempDir } from '../../support/temp-dir.ts';

/** Where the suite's records live: a client on that Redis, the CLI's env for it, and the gateway's key prefix there. */
export interface OpsRedisPlace {
  redis: RedisClient;
  env: Record<string, string>;
  prefix: string;
}

/** Registers the suite; `place()` is called once, before its first test. */
export function describeGatewayCommands(name: string, place: () => Promise<OpsRedisPlace>): void {
  describe(`gateway commands on ${name}`, () => {
    let redis: RedisClient;
    let prefix: string;
    let env: Record<string, string>;
    let runtime: LiveBets;
    let retries: RetryRequests;
    const chain = downChain();
    const nowS = () => Math.floor(Date.now() / 1000);

    beforeAll(async () => {
      ({ redis, prefix, env } = await place());
      env = { ...env, SOLANA_RPC_URL: NO_CHAIN };
      runtime = await betRuntime(createRedisSnapshotStore<BetEmittedEvent>(redis, { kind: 'bet', prefix }), chain.effects);
      runtime.open(betInput('101', nowS() - 5)); // expired: pricing fails, then waits in its backoff
      runtime.open(betInput('102', nowS() + 600)); // open for ten more minutes
      runtime.tick(Date.now());
      await waitUntil(() => chain.calls.priceExit === 1);
      await runtime.settled();
      retries = await listenForRetryRequests({
        redis,
        prefix,
        dataDir: tempDir('ops-'),
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

    it('intents lists the transactions being landed, oldest first', async () => {
      const store = createRedisIntentStore(redis, { prefix });
      expect((await runOps(['intents', '--json', '--gateway-prefix', prefix], env)).json()).toEqual([]);
      await store.put({ key: 'place_bet:B2', what: 'place_bet', signature: 'sig-2', wire: 'AA==', lastValidBlockHeight: 7, since: Date.now() - 1_000 });
      await store.put({ key: 'place_bet:B1', what: 'place_bet', signature: 'sig-1', wire: 'AA==', lastValidBlockHeight: 6, since: Date.now() - 60_000 });
      const listed = await runOps(['intents', '--json', '--gateway-prefix', prefix], env);
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.json().map((r: { signature: string }) => r.signature)).toEqual(['sig-1', 'sig-2']);
      const text = await runOps(['intents', '--gateway-prefix', prefix], env);
      expect(text.stdout).toContain('place_bet:B1');
      expect(text.stdout, text.stdout).toMatch(/1m\d\ds/); // the older one's age (a minute and a few seconds)
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
      const history = createRedisBetHistory(redis, { prefix });
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
      await sleep(1_500); // it is polling
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
}
