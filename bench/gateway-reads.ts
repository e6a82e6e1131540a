/**
 * Gateway reads against a bare uWS JSON route in the same run (issue goal: >= 0.85x, 0 RPC calls
 * per request). The gateway runs as its own process on the local chain process and Redis, as in
 * production; its chain traffic goes through a proxy that counts JSON-RPC calls. Each route is
 * loaded by autocannon for BENCH_SECONDS (5) with BENCH_CONNECTIONS (50) connections.
 */
import autocannon from 'autocannon';
import { report, type Row } from './support/measure.ts';
import { startBareServer, startBenchRedis, startChain, startGatewayProcess, measuredGatewayArgs } from './support/stack.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

async function load(url: string): Promise<{ perSecond: number; p99: number; bad: number }> {
  const r = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS });
  return { perSecond: r['2xx'] / SECONDS, p99: r.latency.p99, bad: r.non2xx + r.errors };
}

const redis = await startBenchRedis();
const chain = await startChain({ GW_EXPIRY_SECONDS: '15' });
const gateway = await startGatewayProcess(chain, redis, {}, measuredGatewayArgs());
const bare = await startBareServer();
try {
  const api = `${gateway.base}/api`;
  while ((await fetch(`${api}/price`)).status !== 200) await new Promise((r) => setTimeout(r, 100));
  const { address } = (await (await fetch(`${api}/wallet`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })).json()) as {
    address: string;
  };
  if ((await fetch(`${api}/faucet/${address}`)).status !== 200) throw new Error('faucet failed');
  await fetch(`${api}/balance/${address}`);

  const baseline = await load(bare.url);
  const rows: Row[] = [];
  for (const [name, path] of [
    ['GET /api/state', '/state'],
    ['GET /api/balance (known address)', `/balance/${address}`],
    ['GET /api/price', '/price'],
  ] as const) {
    chain.rpcProxy.reset();
    const r = await load(api + path);
    const rpcPerRequest = chain.rpcProxy.calls() / (r.perSecond * SECONDS);
    rows.push({
      measure: name,
      value: r.perSecond,
      unit: 'req/s',
      baseline: { name: 'bare uWS JSON route', value: baseline.perSecond },
      goal: '>= 0.85x, 0 RPC calls per request',
      detail: `${rpcPerRequest.toFixed(4)} RPC calls per request, p99 ${r.p99} ms, non-2xx/errors ${r.bad}`,
    });
  }
  report(`gateway reads (${CONNECTIONS} connections, ${SECONDS} s each; bare route p99 ${baseline.p99} ms)`, rows);
} finally {
  await bare.stop();
  await gateway.stop();
  await chain.stop();
  await redis.stop();
}
