/**
 * The read routes under wrk (a C load generator: on 2 cores autocannon saturates before the
 * server does), each against a bare uWS route of the same body length in the same run (goal
 * >= 0.85x, docs/operations.md#benchmarks): gateway `GET /api/state`, `GET /api/balance/:address`
 * (an address the faucet funded), `GET /api/price` (once a price is published), and exchange
 * `GET /api/v1/prices`.
 *
 * Each service runs as its own process, as `npm run gateway` / `npm run exchange` run it (the
 * gateway on the chain process and a private Redis, the exchange on that Redis with synthetic
 * books), so wrk, the server and the baseline share no event loop. Per route: the route's body is
 * fetched once and its length taken; the service is loaded (a 1 s warm-up, then the measured run);
 * then a bare uWS server is started in its own process with a fixed body of exactly that length, loaded
 * the same way, and stopped: never both at once. The CPU each server process used during its run
 * (/proc utime + stime) gives the CPU per request; the gateway's JSON-RPC calls per request are
 * counted by the proxy in front of the chain. When wrk is missing and cannot be installed, every
 * row is printed as skipped with the reason, and the benchmark exits 0.
 *
 * The machine may be shared: before each warm-up the run waits up to BENCH_WRK_QUIET (20) s for
 * the other processes to use under a quarter of a core, and each row says how many cores they
 * used during the measured runs (and wrk's own CPU per request), so that a row measured beside
 * someone else's load can be told apart.
 *
 * Where taskset and two cores exist, the server process (every thread) runs on the first core and wrk
 * on the second, in both runs (BENCH_WRK_PIN=0 to let the scheduler place them).
 *
 * Knobs: BENCH_SECONDS (5), BENCH_WRK_CONNECTIONS (32), BENCH_WRK_THREADS (1), BENCH_WRK_WARMUP
 * (1 s), BENCH_WRK_QUIET (20 s), BENCH_READS_ONLY (a part of the route names, e.g. `state` or `v1/prices`, to run only those);
 * BENCH_GATEWAY_NODE_ARGS / BENCH_EXCHANGE_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=prof")
 * are passed to the service's node.
 */
import { connect } from 'node:net';
import { JsonClient } from '../test/support/json-client.ts';
import { report, until, type Row } from './support/measure.ts';
import {
  measuredExchangeArgs,
  measuredGatewayArgs,
  startBareServer,
  startBenchRedis,
  startChain,
  startExchangeProcess,
  startGatewayProcess,
} from './support/stack.ts';
import { ensureWrk, measureWithWrk, type WrkMeasurement, type WrkOptions } from './support/wrk.ts';

const options: WrkOptions = {
  seconds: Number(process.env.BENCH_SECONDS ?? 5),
  connections: Number(process.env.BENCH_WRK_CONNECTIONS ?? 32),
  threads: Number(process.env.BENCH_WRK_THREADS ?? 1),
  warmupSeconds: Number(process.env.BENCH_WRK_WARMUP ?? 1),
  quietWaitSeconds: Number(process.env.BENCH_WRK_QUIET ?? 20),
  pin: process.env.BENCH_WRK_PIN !== '0',
};
const ONLY = process.env.BENCH_READS_ONLY ?? '';

const GATEWAY_ROUTES = ['GET /api/state', 'GET /api/balance/:address', 'GET /api/price'] as const;
const EXCHANGE_ROUTES = ['GET /api/v1/prices'] as const;
const wanted = (name: string) => name.includes(ONLY);

/** Status, body length and whole response length (status line + headers + body) of one keep-alive GET. */
function probe(url: string): Promise<{ status: number; bodyBytes: number; responseBytes: number }> {
  const { hostname, port, pathname, search } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let got = Buffer.alloc(0);
    const timer = setTimeout(() => socket.destroy(new Error(`${url}: no whole answer within 5 s`)), 5000);
    socket.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    socket.on('data', (d: Buffer) => {
      got = Buffer.concat([got, d]);
      const end = got.indexOf('\r\n\r\n');
      if (end === -1) return;
      const head = got.subarray(0, end).toString('latin1');
      const length = /^content-length:\s*(\d+)/im.exec(head);
      if (!length) return socket.destroy(new Error(`${url}: no Content-Length in\n${head}`));
      const bodyBytes = Number(length[1]);
      if (got.length < end + 4 + bodyBytes) return;
      clearTimeout(timer);
      socket.destroy();
      resolve({ status: Number(head.split(' ')[1]), bodyBytes, responseBytes: end + 4 + bodyBytes });
    });
    socket.write(`GET ${pathname}${search} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`);
  });
}

const ms = (x: number) => (x >= 10 ? x.toFixed(1) : x.toFixed(2));
const errorsOf = (m: WrkMeasurement) =>
  `${m.errors}${m.errors > 0 ? ` (non-2xx/3xx ${m.non2xx3xx}, socket ${m.socketErrors.connect}/${m.socketErrors.read}/${m.socketErrors.write}/${m.socketErrors.timeout} connect/read/write/timeout)` : ''}`;

/** Loads the service route, then a bare route of the same body length; one report row. */
async function compare(wrk: string, name: string, url: string, pid: number, counter?: { reset(): void; per(service: WrkMeasurement): string }): Promise<Row> {
  const route = await probe(url);
  if (route.status !== 200) throw new Error(`${name}: status ${route.status}`);
  const service = await measureWithWrk(wrk, url, pid, { ...options, ...(counter ? { beforeMeasured: () => counter.reset() } : {}) });
  const counted = counter?.per(service);
  const bare = await startBareServer(route.bodyBytes);
  let baseline: WrkMeasurement;
  let bareProbe: Awaited<ReturnType<typeof probe>>;
  try {
    bareProbe = await probe(bare.url);
    baseline = await measureWithWrk(wrk, bare.url, bare.pid, options);
  } finally {
    await bare.stop();
  }
  return {
    measure: name,
    value: service.perSecond,
    unit: 'req/s',
    baseline: { name: 'bare uWS', value: baseline.perSecond },
    goal: '>= 0.85x',
    detail:
      `CPU per request: service ${service.cpuUsPerRequest.toFixed(1)} µs, bare ${baseline.cpuUsPerRequest.toFixed(1)} µs ` +
      `(${(service.cpuUsPerRequest / baseline.cpuUsPerRequest).toFixed(2)}x); ` +
      `p50/p99: service ${ms(service.latencyMs.p50)}/${ms(service.latencyMs.p99)} ms, bare ${ms(baseline.latencyMs.p50)}/${ms(baseline.latencyMs.p99)} ms; ` +
      `errors: service ${errorsOf(service)}, bare ${errorsOf(baseline)}; ` +
      `body ${route.bodyBytes} B (bare ${bareProbe.bodyBytes} B), response ${route.responseBytes} B (bare ${bareProbe.responseBytes} B); ` +
      `wrk CPU per request: service run ${service.wrkCpuUsPerRequest.toFixed(1)} µs, bare run ${baseline.wrkCpuUsPerRequest.toFixed(1)} µs; ` +
      `other processes' cores: service run ${service.otherCores.toFixed(2)}, bare run ${baseline.otherCores.toFixed(2)}; ` +
      `${service.pinned && baseline.pinned ? 'server on core 0, wrk on core 1' : 'not pinned'}` +
      (counted ? `; ${counted}` : ''),
  };
}

/** Runs `fn` for a route; a failure becomes a printed line (and a non-zero exit), not a crash. */
async function row(rows: Row[], failures: string[], name: string, fn: () => Promise<Row>): Promise<void> {
  try {
    rows.push(await fn());
  } catch (e) {
    failures.push(`${name}: failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}

const title = `read routes under wrk (${options.threads} thread, ${options.connections} connections, ${options.seconds} s after a ${options.warmupSeconds} s warm-up; service, then bare)`;
const gatewayRoutes = GATEWAY_ROUTES.filter(wanted);
const exchangeRoutes = EXCHANGE_ROUTES.filter(wanted);
const wrk = ensureWrk();
if (!wrk.ok) {
  console.log(`\n${title}`);
  for (const name of [...gatewayRoutes, ...exchangeRoutes]) console.log(`  ${name}: skipped: ${wrk.reason}`);
  process.exit(0);
}

const rows: Row[] = [];
const failures: string[] = [];
const redis = await startBenchRedis();
try {
  if (gatewayRoutes.length > 0) {
    const chain = await startChain({ GW_EXPIRY_SECONDS: '15' });
    try {
      const gateway = await startGatewayProcess(chain, redis, {}, measuredGatewayArgs());
      const client = new JsonClient(gateway.base, 4);
      try {
        await until('a published price', async () => (await client.call('GET', '/api/price')).status === 200, 30_000, 100);
        const wallet = await client.call('POST', '/api/wallet', {});
        const address = wallet.body?.address;
        if (typeof address !== 'string') throw new Error(`no wallet: ${JSON.stringify(wallet)}`);
        const faucet = await client.call('GET', `/api/faucet/${address}`);
        if (faucet.status !== 200) throw new Error(`faucet refused: ${JSON.stringify(faucet)}`);
        await until('the funded balance', async () => (await client.call('GET', `/api/balance/${address}`)).status === 200, 10_000, 100);
        const paths: Record<(typeof GATEWAY_ROUTES)[number], string> = {
          'GET /api/state': '/api/state',
          'GET /api/balance/:address': `/api/balance/${address}`,
          'GET /api/price': '/api/price',
        };
        for (const name of gatewayRoutes) {
          const rpc = {
            reset: () => chain.rpcProxy.reset(),
            per: (s: WrkMeasurement) => `${(chain.rpcProxy.calls() / Math.max(1, s.requests)).toFixed(4)} RPC calls per request`,
          };
          await row(rows, failures, name, () => compare(wrk.path, name, gateway.base + paths[name], gateway.pid, rpc));
        }
      } finally {
        client.close();
        await gateway.stop();
      }
    } finally {
      await chain.stop();
    }
  }
  if (exchangeRoutes.length > 0) {
    const exchange = await startExchangeProcess(redis, {}, measuredExchangeArgs());
    const client = new JsonClient(exchange.base, 4);
    try {
      await until(
        'the synthetic prices',
        async () => ((await client.call('GET', '/api/v1/prices')).body as unknown as unknown[] | null)?.length === 3,
        30_000,
        100,
      );
      for (const name of exchangeRoutes) await row(rows, failures, name, () => compare(wrk.path, name, `${exchange.base}/api/v1/prices`, exchange.pid));
    } finally {
      client.close();
      await exchange.stop();
    }
  }
} finally {
  await redis.stop();
}
report(title, rows);
for (const f of failures) console.log(`  ${f}`);
if (failures.length > 0) process.exitCode = 1;
