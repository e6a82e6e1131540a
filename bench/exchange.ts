/**
 * The exchange against same-run baselines (goals: market orders >= 5,000/s and >= 0.4x of the
 * COMMIT script alone; GET /api/v1/prices >= 0.85x of a bare uWS JSON route).
 *
 * The exchange runs as its own process (`npm run exchange`) on a private Redis, with synthetic
 * books (deep enough that every order fills). 100 accounts are opened and funded by a deposit;
 * then market orders (BUY 0.001 SOLUSDT) are sent round-robin over the accounts by autocannon,
 * BENCH_CONNECTIONS (64) keep-alive connections for BENCH_SECONDS (5). Redis commands are counted
 * with `INFO commandstats` before and after: a round trip is one EVALSHA/EVAL (a script run) or one
 * EXEC (a transaction). The CPU each process spends per order during the orders (the exchange
 * and Redis from /proc, the load generator from this process) and the machine's idle cores show
 * which of them is the limit. Baseline: the COMMIT script alone from this process, EVALSHA with
 * the keys and arguments of a real order of the run (its stored order, fills, journal entry,
 * equity point and final state; the orders carry no Idempotency-Key, so no idempotency record),
 * 64 in flight for the same duration, each in-flight slot on its own account. Then GET /api/v1/prices and the bare route (padded to the
 * same body length) under the same load.
 * BENCH_EXCHANGE_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=prof") is passed to the exchange's node.
 */
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { commitArgs, type CommitText } from '../adapters/store/exchange/redis.ts';
import { COMMIT } from '../adapters/store/exchange/redis-scripts.ts';
import { JsonClient } from './support/http-client.ts';
import { cpuMs, machineIdleMs, percentile, report, type Row } from './support/measure.ts';
import { measuredExchangeArgs, startBareServer, startBenchRedis, startExchangeProcess } from './support/stack.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const ACCOUNTS = 100;
const ORDER = JSON.stringify({ symbol: 'SOLUSDT', side: 'BUY', qty: '0.001' });

/** Calls per command from `INFO commandstats`. */
async function commandCalls(redis: Redis): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const m of (await redis.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) out.set(m[1] as string, Number(m[2]));
  return out;
}

const diff = (after: Map<string, number>, before: Map<string, number>) =>
  new Map([...after].map(([k, v]) => [k, v - (before.get(k) ?? 0)] as const).filter(([, v]) => v > 0));

/** Orders round-robin over `paths` for `seconds`. */
async function loadOrders(base: string, paths: string[], seconds: number) {
  let next = 0;
  return autocannon({
    url: base,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: ORDER,
        setupRequest: (req) => ({ ...req, path: paths[next++ % paths.length] as string }),
      },
    ],
  });
}

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

/** The COMMIT arguments of a real order of `accountId`, read back from what its commit stored. */
async function realCommitPayload(redis: Redis, accountId: string): Promise<CommitText> {
  const b = `exchange:account:${accountId}`;
  const [order] = await redis.lrange(`${b}:orders`, '-1', '-1');
  if (!order) throw new Error('no order was stored');
  const { orderId } = JSON.parse(order) as { orderId: string };
  const account = await redis.hgetall(b);
  const positions = await redis.hgetall(`${b}:positions`);
  const [equity, score] = await redis.zrange(`${b}:equity`, '-1', '-1', 'WITHSCORES');
  const entries = await redis.xrevrange(`${b}:journal`, '+', '-', 'COUNT', 1);
  const { idempotencyKey } = JSON.parse(order) as { idempotencyKey: string | null };
  const idem = idempotencyKey === null ? null : await redis.hget(`${b}:idempotency`, `key:${idempotencyKey}`);
  const state = await redis.hget(`${b}:order-states`, orderId);
  if (!equity || !score || !entries[0] || !state || (idempotencyKey !== null && !idem)) throw new Error('the stored order is incomplete');
  return {
    cash: account.cash as string,
    cashLocked: account.cashLocked ?? '0',
    netDeposits: account.netDeposits as string,
    feesPaid: account.feesPaid as string,
    positions,
    journal: [entries[0][1]],
    order,
    equity: { score, member: equity },
    ...(idem ? { idem: { key: `key:${idempotencyKey}`, value: idem } } : {}),
    state: { id: orderId, json: state },
  };
}

const redis = await startBenchRedis();
const exchange = await startExchangeProcess(redis, {}, measuredExchangeArgs());
const client = new JsonClient(exchange.base, 16);
const admin = new Redis(redis.url);
try {
  const api = '/api/v1';
  while (((await client.call('GET', `${api}/prices`)).body as unknown as unknown[] | null)?.length !== 3) await new Promise((r) => setTimeout(r, 100));
  const ids = await Promise.all(
    Array.from({ length: ACCOUNTS }, async (_, i) => {
      const opened = await client.call('POST', `${api}/accounts`, { name: `bench-${i}`, initialCash: '1' });
      const id = opened.body?.id as string;
      const funded = await client.call('POST', `${api}/accounts/${id}/deposits`, { amount: '100000000', reason: 'bench funding' });
      if (opened.status !== 201 || funded.status !== 201) throw new Error(`account ${i}: open ${opened.status}, deposit ${funded.status}`);
      return id;
    }),
  );
  const paths = ids.map((id) => `${api}/accounts/${id}/orders`);

  // warm-up (JIT, connections, script cache), which also gives the baseline a real order's arguments
  const warm = await loadOrders(exchange.base, paths, 1);
  if (warm['2xx'] === 0) throw new Error(`no order succeeded in the warm-up (non-2xx ${warm.non2xx}, errors ${warm.errors})`);
  const payload = await realCommitPayload(admin, ids[0] as string);
  const baseline = await commitAlone(redis.url, payload, SECONDS);

  const ordersBefore = await Promise.all(ids.map((id) => admin.llen(`exchange:account:${id}:orders`)));
  const before = await commandCalls(admin);
  // where the machine's CPU goes during the orders: the exchange, the load generator (this process), Redis, idle
  const redisPid = Number(/process_id:(\d+)/.exec(await admin.info('server'))?.[1]);
  const cpuBefore = { exchange: cpuMs(exchange.pid), load: process.cpuUsage(), redis: cpuMs(redisPid), idle: machineIdleMs() };
  const orders = await loadOrders(exchange.base, paths, SECONDS);
  const load = process.cpuUsage(cpuBefore.load);
  const cpu = {
    exchange: cpuMs(exchange.pid) - cpuBefore.exchange,
    load: (load.user + load.system) / 1000,
    redis: cpuMs(redisPid) - cpuBefore.redis,
    idleCores: (machineIdleMs() - cpuBefore.idle) / 1000 / SECONDS,
  };
  const calls = diff(await commandCalls(admin), before);
  const ordersAfter = await Promise.all(ids.map((id) => admin.llen(`exchange:account:${id}:orders`)));
  const stored = ordersAfter.reduce((s, n, i) => s + n - (ordersBefore[i] as number), 0);
  const filled = orders['2xx'];
  const roundTrips = ((calls.get('exec') ?? 0) + (calls.get('evalsha') ?? 0) + (calls.get('eval') ?? 0)) / Math.max(1, filled);
  const usPerOrder = (ms: number) => `${Math.round((ms * 1000) / Math.max(1, filled))} µs`;
  const perOrder = [...calls]
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${(v / Math.max(1, filled)).toFixed(2)}`)
    .join(', ');

  // reads: the prices route against the bare route padded to the same body length
  const pricesBody = JSON.stringify((await client.call('GET', `${api}/prices`)).body);
  const bare = await startBareServer(Buffer.byteLength(pricesBody));
  const bareBody = await (await fetch(bare.url)).text();
  const bareLoad = await autocannon({ url: bare.url, connections: CONNECTIONS, duration: SECONDS });
  const prices = await autocannon({ url: `${exchange.base}${api}/prices`, connections: CONNECTIONS, duration: SECONDS });
  await bare.stop();

  const rows: Row[] = [
    {
      measure: `market orders over ${ACCOUNTS} accounts`,
      value: filled / SECONDS,
      unit: 'orders/s',
      baseline: { name: 'COMMIT script alone (EVALSHA)', value: baseline.perSecond },
      goal: '>= 5,000/s and >= 0.4x of COMMIT alone',
      detail:
        `p50 ${orders.latency.p50} ms, p99 ${orders.latency.p99} ms, non-2xx/errors ${orders.non2xx + orders.errors}, ${stored} orders stored; ` +
        `${roundTrips.toFixed(2)} Redis round trips per order (script runs + transactions); commands per order: ${perOrder}; ` +
        `CPU per order: exchange ${usPerOrder(cpu.exchange)}, load generator ${usPerOrder(cpu.load)}, Redis ${usPerOrder(cpu.redis)} (machine idle ${cpu.idleCores.toFixed(2)} cores); ` +
        `COMMIT alone p50 ${baseline.p50.toFixed(2)} ms, p99 ${baseline.p99.toFixed(2)} ms, conflicts ${baseline.failed}`,
    },
    {
      measure: 'GET /api/v1/prices',
      value: prices['2xx'] / SECONDS,
      unit: 'req/s',
      baseline: { name: 'bare uWS JSON route', value: bareLoad['2xx'] / SECONDS },
      goal: '>= 0.85x',
      detail: `body ${Buffer.byteLength(pricesBody)} B (bare ${Buffer.byteLength(bareBody)} B), p99 ${prices.latency.p99} ms (bare ${bareLoad.latency.p99} ms), non-2xx/errors ${prices.non2xx + prices.errors}`,
    },
  ];
  report(`exchange process on Redis (${CONNECTIONS} connections, ${SECONDS} s each)`, rows);
} finally {
  client.close();
  await admin.quit().catch(() => undefined);
  await exchange.stop();
  await redis.stop();
}
