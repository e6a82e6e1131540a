/**
 * Redis with Sentinel under load (docs/operations.md#redis-with-sentinel): a real exchange and two
 * real gateways on a primary + replica + three Sentinels, the local chain and NATS; accounts trade
 * concurrently over HTTP and wallets bet in a loop. The primary is SIGKILLed, later the next one is
 * SIGSTOPped until the Sentinels fail over and then resumed. Afterwards every trade answered 201
 * is in the ledger, every journal replays to its balances (the ops CLI's `journal --replay-check`,
 * through the Sentinels), every bet is settled on chain once with one `bet_closed` in the event
 * stream, and the old primary, resumed, acknowledged nothing. Commits wait for one replica
 * (REDIS_MIN_REPLICAS=1); REDIS_MIN_REPLICAS=0 in the environment runs the same test without.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { FaultWorld, request, sleep } from '../support/fault-world.ts';
import { logLines } from '../support/gateway-log.ts';
import { managedService, type Managed } from '../support/managed.ts';
import { startSentinelSet, type SentinelSet } from '../support/redis-sentinel.ts';
import { freePort } from '../support/servers.ts';
import { collect } from '../support/ws-collector.ts';

const MIN_REPLICAS = process.env.REDIS_FAILOVER_MIN_REPLICAS ?? '1';
const ACCOUNTS = 4;

let set: SentinelSet;
let world: FaultWorld;
let exchange: Managed;
let second: Managed;
let exchangeBase = '';
let sentinelEnv: Record<string, string> = {};
const accounts: string[] = [];

/** One order's final answer (after retrying its 503s with the same Idempotency-Key). */
interface Trade {
  accountId: string;
  key: string;
  status: number;
  body: any;
  /** 503 answers before the final one */
  retried: number;
}

/** Accounts that each post one market order after another with a fresh Idempotency-Key, until stopped. */
class Traders {
  readonly trades: Trade[] = [];
  private running = true;
  private readonly loops: Promise<void>[];

  constructor(label: string) {
    this.loops = accounts.map(async (accountId, i) => {
      for (let n = 0; this.running; n++) {
        const key = `${label}-${i}-${n}`;
        const body = { symbol: 'SOLUSDT', side: n % 2 === 0 ? 'BUY' : 'SELL', qty: '0.01' };
        let retried = 0;
        for (;;) {
          const r = await order(accountId, key, body);
          // a 503 (Redis away, or the write not confirmed on a replica) is retried with the same key, as the API asks
          if (r.status === 503 && retried < 40 && this.running) {
            retried++;
            await sleep(250);
            continue;
          }
          this.trades.push({ accountId, key, status: r.status, body: r.body, retried });
          break;
        }
        await sleep(20);
      }
    });
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }
}

async function order(accountId: string, key: string, body: unknown): Promise<{ status: number; body: any }> {
  try {
    const res = await fetch(`${exchangeBase}/api/v1/accounts/${accountId}/orders`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(8_000),
    });
    return { status: res.status, body: await res.json().catch(() => null) };
  } catch {
    return { status: 0, body: null };
  }
}

/** `npm run ops -- journal <id> --replay-check --json` through the Sentinels. */
function replayCheck(accountId: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const { REDIS_URL: _url, NATS_URL: _nats, ...inherited } = process.env;
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/ops.ts', 'journal', accountId, '--replay-check', '--json'], {
      env: { ...inherited, ...sentinelEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => resolve({ code, out }));
  });
}

/** Every trade answered 201 is in its account's orders, and every journal replays to the stored balances. */
async function expectLedgerIntact(trades: readonly Trade[]): Promise<void> {
  const accepted = trades.filter((t) => t.status === 201);
  expect(accepted.length).toBeGreaterThan(20);
  for (const accountId of accounts) {
    const listed = await request(exchangeBase, 'GET', `/api/v1/accounts/${accountId}/orders?limit=1000`);
    expect(listed.status).toBe(200);
    const ids = new Set((listed.body as { orderId: string }[]).map((o) => o.orderId));
    const missing = accepted.filter((t) => t.accountId === accountId && !ids.has(t.body.orderId)).map((t) => t.key);
    expect(missing, `orders of ${accountId} answered 201 but not in the ledger`).toEqual([]);
    const check = await replayCheck(accountId);
    expect(check.code, check.out).toBe(0);
    expect(JSON.parse(check.out)).toMatchObject({ ok: true, differences: [] });
  }
  // the last answer of each account names its cash: the ledger holds no trade after it that nobody was told of
  // (unless an order after it ended without a 201: it may or may not have been written)
  for (const accountId of accounts) {
    const mine = trades.filter((t) => t.accountId === accountId);
    const last = mine.at(-1);
    if (!last || last.status !== 201) continue;
    const account = await request(exchangeBase, 'GET', `/api/v1/accounts/${accountId}`);
    expect(account.body.cash, `cash of ${accountId}`).toBe(last.body.cash);
  }
  // nothing but 201 and 503 (and its retries) was answered
  expect(trades.filter((t) => t.status !== 201 && t.status !== 503).map((t) => `${t.key}: ${t.status} ${JSON.stringify(t.body)}`)).toEqual([]);
}

/** Every bet the chain holds is settled, and the event stream holds one bet_open and one bet_closed for each. */
async function expectBetsSettledOnce(): Promise<void> {
  const bets = await world.settledOnChain(90_000);
  expect(bets.length).toBeGreaterThan(5);
  expect(bets.filter((b) => b.status === 0).map((b) => b.id.toString())).toEqual([]);
  for (const id of world.placed)
    expect(
      bets.some((b) => b.id.toString() === id),
      `bet ${id} answered 200 but is not on chain`,
    ).toBe(true);
  const replay = await collect(`${world.base.replace('http', 'ws')}/api/ws?since=0`);
  await eventually(
    'a bet_closed in the stream for every bet on chain',
    async () => {
      const closed = new Set(replay.messages.filter((e) => e.type === 'bet_closed').map((e) => String(e.id)));
      return bets.every((b) => closed.has(b.id.toString())) ? true : null;
    },
    60_000,
    250,
  ).catch(() => undefined);
  await sleep(1_000);
  replay.close();
  const log = replay.messages.filter((e) => typeof e.seq === 'number');
  for (const b of bets) {
    const id = b.id.toString();
    expect(log.filter((e) => e.type === 'bet_open' && e.id === id).length, `bet_open of ${id}`).toBe(1);
    const closed = log.filter((e) => e.type === 'bet_closed' && e.id === id);
    expect(closed.length, `bet_closed of ${id}`).toBe(1);
    expect(closed[0]).toMatchObject({ status: b.status, exitPrice: Number(b.exitPrice) });
  }
}

beforeAll(async () => {
  set = await startSentinelSet();
  sentinelEnv = { REDIS_SENTINELS: set.sentinels, REDIS_MASTER_NAME: set.masterName, REDIS_MIN_REPLICAS: MIN_REPLICAS, REDIS_WAIT_TIMEOUT_MS: '500' };
  const gatewayEnv = { ...sentinelEnv, GW_LEASE_TTL_MS: '3000' };
  world = await FaultWorld.start({ redis: false, wallets: 6, env: gatewayEnv });
  const secondPort = await freePort();
  second = managedService(
    'gateway',
    {
      ...gatewayEnv,
      DATA_DIR: world.dataDir,
      GATEWAY_PORT: String(secondPort),
      NATS_URL: world.nats.url,
      SOLANA_RPC_URL: world.chainUrl,
      SMART_SETTLE_INTERVAL_MS: '200',
      GW_EXPIRY_SECONDS: '3',
      GW_RECLAIM_BETS: 'off',
      GW_INIT: 'off',
      GW_NODE_ID: 'gw-second',
    },
    secondPort,
  );
  await second.start();
  const [port, mgmtPort] = [await freePort(), await freePort()];
  exchange = managedService(
    'exchange',
    { ...sentinelEnv, EXCHANGE_PORT: String(port), EXCHANGE_MGMT_PORT: String(mgmtPort), EXCHANGE_FEED: 'synthetic', NATS_URL: '', DATA_DIR: world.dataDir },
    mgmtPort,
  );
  await exchange.start();
  exchangeBase = `http://127.0.0.1:${port}`;
  for (let i = 0; i < ACCOUNTS; i++) {
    const r = await request(exchangeBase, 'POST', '/api/v1/accounts', { name: `trader-${i}`, initialCash: '100000' });
    expect(r.status).toBe(201);
    accounts.push(r.body.id as string);
  }
}, 240_000);

afterAll(async () => {
  await exchange?.stop();
  await second?.stop();
  await world?.stop();
  await set?.stop();
}, 60_000);

describe('Redis with Sentinel under load', () => {
  it('a SIGKILLed primary: every trade answered 201 is in the ledger, journals replay, every bet settles once with one bet_closed', async () => {
    const traders = new Traders('kill');
    world.startBettors();
    await sleep(4_000);
    const old = await set.primaryPort();
    await set.node(old).kill();
    await set.waitForFailover(old);
    await sleep(6_000);
    await traders.stop();
    await world.stopBettors();
    await set.node(old).start(); // back as a replica of the new primary: the next test needs one
    await eventually('the old primary back as a replica', async () => ((await set.roleOf(old)) === 'slave' ? true : null), 30_000, 200);

    await expectLedgerIntact(traders.trades);
    await expectBetsSettledOnce();
  }, 240_000);

  it('a paused primary, resumed after the failover: it acknowledges nothing, and nothing answered 201 is lost', async () => {
    await eventually(
      'the replica in sync',
      async () => {
        const primary = await set.primaryPort();
        const other = set.nodes.find((n) => n.port !== primary);
        return other && (await set.roleOf(other.port)) === 'slave' ? true : null;
      },
      30_000,
      200,
    );
    const traders = new Traders('pause');
    world.startBettors();
    await sleep(3_000);
    const paused = await set.primaryPort();
    set.node(paused).pause();
    await set.waitForFailover(paused);
    await sleep(2_000);
    set.node(paused).resume();
    await eventually('the paused primary demoted', async () => ((await set.roleOf(paused)) === 'slave' ? true : null), 30_000, 200);
    await sleep(3_000);
    await traders.stop();
    await world.stopBettors();

    await expectLedgerIntact(traders.trades);
    await expectBetsSettledOnce();
  }, 240_000);

  // The leader's lease and fence are in Redis today (adapters/store/lease/redis.ts): this is the one
  // assertion about fences, to be pointed at wherever the lease lives.
  it('leader fences across the failovers: every election took a higher fence than all before it, and no fence went to two gateways', async () => {
    const elections = [world.gateway, second]
      .flatMap((g) =>
        logLines(g.output())
          .filter((l) => /^elected leader/.test(l.msg))
          .map((l) => ({ time: l.time, fence: Number(l.fence), node: g === second ? 'second' : 'first' })),
      )
      .sort((a, b) => a.time - b.time);
    expect(elections.length).toBeGreaterThan(0);
    // a node that took its own unexpired lease back keeps its fence; any other election takes a higher one
    const wrong = elections.filter((e, i) => {
      const before = elections.slice(0, i);
      return before.some((b) => b.fence > e.fence || (b.fence === e.fence && b.node !== e.node));
    });
    expect(wrong, JSON.stringify(elections)).toEqual([]);
    // and now exactly one gateway leads
    const bases = [world.base, `http://127.0.0.1:${second.port}`];
    await eventually(
      'exactly one leader',
      async () => {
        const leaders = await Promise.all(bases.map(async (b) => (await request(b, 'GET', '/health')).body?.leader));
        return leaders.filter((l) => l === true).length === 1 ? true : null;
      },
      20_000,
      200,
    );
  }, 60_000);
});
