/**
 * The exchange against same-run baselines (docs/operations.md#benchmarks; goals: market orders
 * >= 5,000/s and >= 0.6x of the floor service; GET /api/v1/prices >= 0.85x of a bare uWS route).
 *
 * The exchange runs as its own process (`npm run exchange`) on a private Redis, with synthetic
 * books (deep enough that every order fills). 100 accounts are opened and funded by a deposit.
 * Market orders (BUY 0.001 SOLUSDT, no Idempotency-Key) are sent by wrk (a C load generator; the
 * exchange's one core would otherwise share its load with a Node generator), one thread,
 * BENCH_CONNECTIONS (64) keep-alive connections, with a Lua script that POSTs the body to the 100
 * accounts' order paths in turn: a 1 s warm-up, then BENCH_SECONDS (5) measured.
 *
 * The baseline is the floor service (`support/floor-server.ts`), loaded the same way right after:
 * bare uWS in its own process that parses the same body with the exchange's own valibot schema
 * and runs the same COMMIT script through ioredis with a precomputed change (the keys and
 * arguments of a real order of the run), on its own accounts in the same Redis. The ratio is
 * then the cost of the domain alone (book walk, ledger, order machine, HTTP kit).
 *
 * Where taskset and two cores exist, the server (the exchange, then the floor) runs on core 0,
 * and wrk and Redis on core 1, in both runs (BENCH_WRK_PIN=0 to let the scheduler place them).
 * For each run: orders/s, p50/p99, the server's CPU per order (and the floor's over the
 * exchange's: the ratio that holds when the machine is shared) and how much of its core it kept
 * busy, Redis's CPU and commands per order, wrk's CPU per order and the cores other processes
 * used meanwhile; past a quarter of a core the row is marked DISTURBED (they share the server's
 * core, so the orders/s ratio is then theirs as much as the servers').
 *
 * Information beside them: the COMMIT script alone from this process (EVALSHA with the real
 * order's arguments, 64 in flight, each on its own account) for BENCH_SECONDS; then
 * GET /api/v1/prices and a bare uWS route padded to the same body length, under wrk as above.
 * BENCH_EXCHANGE_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=prof") is passed to the exchange's node.
 * When wrk is missing and cannot be installed, the rows are printed as skipped.
 */
import { Redis } from 'ioredis';
import { commitArgs, type CommitText } from '../adapters/store/exchange/redis.ts';
import { COMMIT } from '../adapters/store/exchange/redis-scripts.ts';
import { JsonClient } from '../test/support/json-client.ts';
import { percentile, report, type Row } from './support/measure.ts';
import { measureOrders, realOrder, type OrdersRun } from './support/order-load.ts';
import { measuredExchangeArgs, startBareServer, startBenchRedis, startExchangeProcess, startFloorServer } from './support/stack.ts';
import { ensureWrk, measureWithWrk, type WrkMeasurement, type WrkOptions } from './support/wrk.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const ACCOUNTS = 100;
const options: WrkOptions = {
  seconds: SECONDS,
  connections: CONNECTIONS,
  threads: Number(process.env.BENCH_WRK_THREADS ?? 1),
  warmupSeconds: Number(process.env.BENCH_WRK_WARMUP ?? 1),
  quietWaitSeconds: Number(process.env.BENCH_WRK_QUIET ?? 20),
  pin: process.env.BENCH_WRK_PIN !== '0',
};

/** The COMMIT script alone: `CONNECTIONS` loops, each committing to its own account for `seconds`. */
async function commitAlone(url: string, payload: CommitText, seconds: number): Promise<{ perSecond: number; p50: number; p99: number; failed: number }> {
  const redis = new Redis(url, { enableAutoPipelining: true, connectionName: 'bench-commit' });
  const prefix = 'bench-commit';
  const latencies: number[] = [];
  let done = 0;
  let failed = 0;
  const keysOf = (i: number) => {
    const b = `${prefix}:account:${i}`;
    return [b, `${b}:positions`, `${b}:orders`, `${b}:equity`, `${b}:journal`, `${b}:idempotency`, `${b}:order-states`];
  };
  for (let i = 0; i < CONNECTIONS; i++) await redis.hset(keysOf(i)[0] as string, 'version', '1', 'cash', '0');
  const { idem, state } = payload;
  if (!state) throw new Error('the order payload has no final state');
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, i) => {
      const keys = keysOf(i);
      let version = 1;
      while (performance.now() < deadline) {
        // a fresh order id (and idempotency key, when the order had one) per commit, as each order has its own
        const n = `${i}-${version}`;
        const t0 = performance.now();
        const out = await COMMIT.run(
          redis,
          keys,
          commitArgs(version, { ...payload, ...(idem ? { idem: { ...idem, key: `key:${n}` } } : {}), state: { ...state, id: n } }),
        );
        latencies.push(performance.now() - t0);
        if (out === 'committed') {
          done++;
          version++;
        } else failed++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  await redis.quit();
  return { perSecond: done / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99), failed };
}

const title = `exchange process on Redis under wrk (${options.threads} thread, ${CONNECTIONS} connections, ${SECONDS} s after a ${options.warmupSeconds} s warm-up)`;
const wrk = ensureWrk();
if (!wrk.ok) {
  console.log(`\n${title}`);
  for (const name of [`market orders over ${ACCOUNTS} accounts`, 'GET /api/v1/prices']) console.log(`  ${name}: skipped: ${wrk.reason}`);
  process.exit(0);
}

const ms = (x: number) => (x >= 10 ? x.toFixed(1) : x.toFixed(2));
const us = (x: number) => `${Math.round(x)} µs`;
const perOrder = (r: OrdersRun, cpuMs: number) => us((cpuMs * 1000) / Math.max(1, r.placed));
const commandsOf = (r: OrdersRun) => r.commands.map(([k, n]) => `${k} ${n.toFixed(2)}`).join(', ');
const cpuPerOrder = (r: OrdersRun) => r.serverCpuMs / Math.max(1, r.placed);
const busy = (r: OrdersRun) => (r.serverCpuMs / 1000 / r.seconds).toFixed(2);
const othersOf = (r: OrdersRun) => Math.max(0, r.otherCores - r.redisCpuMs / 1000 / r.seconds);
const others = (r: OrdersRun) => othersOf(r).toFixed(2);
// other processes that took a quarter of a core during either run make the orders/s ratio unreliable (they share the
// server's core): the CPU per order ratio is then the one to read. A server busy well under its core was limited by
// something else (wrk and Redis on the other core, or the machine's other processes)
const disturbed = (...runs: OrdersRun[]) => (runs.some((r) => othersOf(r) > 0.25) ? ' (DISTURBED: compare the CPU per order)' : '');
const placement = (...runs: WrkMeasurement[]) => (runs.every((r) => r.pinned) ? 'server on core 0, wrk and Redis on core 1' : 'not pinned');

const redis = await startBenchRedis();
const exchange = await startExchangeProcess(redis, {}, measuredExchangeArgs());
const client = new JsonClient(exchange.base, 16);
const admin = new Redis(redis.url);
try {
  const api = '/api/v1';
  while (((await client.call('GET', `${api}/prices`)).body as unknown as unknown[] | null)?.length !== 3) await sleep(100);
  const ids = await Promise.all(
    Array.from({ length: ACCOUNTS }, async (_, i) => {
      const opened = await client.call('POST', `${api}/accounts`, { name: `bench-${i}`, initialCash: '1' });
      const id = opened.body?.id as string;
      const funded = await client.call('POST', `${api}/accounts/${id}/deposits`, { amount: '100000000', reason: 'bench funding' });
      if (opened.status !== 201 || funded.status !== 201) throw new Error(`account ${i}: open ${opened.status}, deposit ${funded.status}`);
      return id;
    }),
  );

  // the exchange, then the floor with the change of one of the exchange's orders, loaded the same way
  const orders = await measureOrders(wrk.path, exchange.base, exchange.pid, ids, admin, 'exchange', options);
  if (orders.placed === 0) throw new Error(`no order succeeded (${orders.errors} errors)`);
  const real = await realOrder(admin, ids[0] as string);
  const floor = await startFloorServer({ redisUrl: redis.url, prefix: 'floor', accountIds: ids, change: real.change, answer: real.answer });
  let floorRun: OrdersRun;
  try {
    floorRun = await measureOrders(wrk.path, floor.base, floor.pid, ids, admin, 'floor', options);
  } finally {
    await floor.stop();
  }
  const baseline = await commitAlone(redis.url, real.change, SECONDS);

  // reads: the prices route against the bare route padded to the same body length
  const pricesBody = JSON.stringify((await client.call('GET', `${api}/prices`)).body);
  const prices = await measureWithWrk(wrk.path, `${exchange.base}${api}/prices`, exchange.pid, options);
  const bare = await startBareServer(Buffer.byteLength(pricesBody));
  let bareBody: string;
  let bareLoad: WrkMeasurement;
  try {
    bareBody = await (await fetch(bare.url)).text();
    bareLoad = await measureWithWrk(wrk.path, bare.url, bare.pid, options);
  } finally {
    await bare.stop();
  }

  const rate = (r: OrdersRun) => r.placed / r.seconds;
  const rows: Row[] = [
    {
      measure: `market orders over ${ACCOUNTS} accounts`,
      value: rate(orders),
      unit: 'orders/s',
      baseline: { name: 'floor service (uWS + valibot + COMMIT)', value: rate(floorRun) },
      goal: '>= 5,000/s and >= 0.6x of the floor',
      detail:
        `p50/p99: exchange ${ms(orders.latencyMs.p50)}/${ms(orders.latencyMs.p99)} ms, floor ${ms(floorRun.latencyMs.p50)}/${ms(floorRun.latencyMs.p99)} ms; ` +
        `server CPU per order: exchange ${perOrder(orders, orders.serverCpuMs)}, floor ${perOrder(floorRun, floorRun.serverCpuMs)} ` +
        `(floor/exchange ${(cpuPerOrder(floorRun) / cpuPerOrder(orders)).toFixed(3)}x); ` +
        `server busy: exchange ${busy(orders)}, floor ${busy(floorRun)} of its core; ` +
        `Redis CPU per order: exchange run ${perOrder(orders, orders.redisCpuMs)}, floor run ${perOrder(floorRun, floorRun.redisCpuMs)}; ` +
        `wrk CPU per order: exchange run ${perOrder(orders, orders.wrkCpuMs)}, floor run ${perOrder(floorRun, floorRun.wrkCpuMs)}; ` +
        `other processes' cores (besides server, wrk and Redis): exchange run ${others(orders)}, floor run ${others(floorRun)}${disturbed(orders, floorRun)}; ` +
        `errors: exchange ${orders.errors}, floor ${floorRun.errors}; orders stored: exchange ${orders.stored}, floor ${floorRun.stored}; ` +
        `Redis commands per order: exchange ${commandsOf(orders)}; floor ${commandsOf(floorRun)}; ${placement(orders, floorRun)}`,
    },
    {
      measure: 'COMMIT script alone (information)',
      value: baseline.perSecond,
      unit: 'commits/s',
      detail: `from the bench process, ${CONNECTIONS} in flight, each on its own account; p50 ${baseline.p50.toFixed(2)} ms, p99 ${baseline.p99.toFixed(2)} ms, conflicts ${baseline.failed}; the exchange is ${(rate(orders) / baseline.perSecond).toFixed(3)}x of it`,
    },
    {
      measure: 'GET /api/v1/prices',
      value: prices.perSecond,
      unit: 'req/s',
      baseline: { name: 'bare uWS JSON route', value: bareLoad.perSecond },
      goal: '>= 0.85x',
      detail:
        `body ${Buffer.byteLength(pricesBody)} B (bare ${Buffer.byteLength(bareBody)} B); CPU per request: exchange ${prices.cpuUsPerRequest.toFixed(1)} µs, bare ${bareLoad.cpuUsPerRequest.toFixed(1)} µs; ` +
        `p99 ${ms(prices.latencyMs.p99)} ms (bare ${ms(bareLoad.latencyMs.p99)} ms); errors ${prices.errors} (bare ${bareLoad.errors}); ` +
        `other processes' cores: ${prices.otherCores.toFixed(2)} (bare run ${bareLoad.otherCores.toFixed(2)}); ${placement(prices, bareLoad)}`,
    },
  ];
  report(title, rows);
} finally {
  client.close();
  await admin.quit().catch(() => undefined);
  await exchange.stop();
  await redis.stop();
}
