/**
 * Order placement throughput of the exchange on a private Redis, over loopback: many accounts
 * (commits never contend) and one account (every commit contends on its version).
 * Run: `npx tsx bench/exchange-orders.ts` — prints requests/s and latency percentiles.
 */
import autocannon from 'autocannon';
import type { BookFeed, BookSnapshot } from '../adapters/feed/port.ts';
import { redisExchangeStore } from '../adapters/store/exchange-redis.ts';
import { startExchange } from '../server/exchange/app.ts';
import { startRedisServer } from '../test/support/servers.ts';
import { log } from '../runtime/log.ts';

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);

/** A feed that re-stamps one deep SOL book every 200 ms. */
function steadyBooks(): BookFeed {
  let timer: NodeJS.Timeout | undefined;
  const listeners = new Set<(b: BookSnapshot) => void>();
  const emit = () => {
    const book: BookSnapshot = { symbol: 'SOLUSDT', bids: [['149.99', '1000000']], asks: [['150.00', '1000000'], ['150.01', '1000000']], ts: Date.now() };
    for (const l of listeners) l(book);
  };
  return {
    async start() {
      emit();
      timer = setInterval(emit, 200);
    },
    onBook(l) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    async stop() {
      clearInterval(timer);
    },
  };
}

async function run(title: string, url: string, paths: string[]) {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: DURATION_S,
    requests: paths.map((path) => ({ method: 'POST', path, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ symbol: 'SOLUSDT', side: 'BUY', qty: '0.001' }) })),
  });
  const ok = result['2xx'];
  console.log(
    `${title}: ${(ok / DURATION_S).toFixed(0)} orders/s, latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}, errors ${result.errors}`,
  );
}

const redis = await startRedisServer();
const exchange = await startExchange({
  port: 0, mgmtPort: 0, bookMaxAgeMs: 30_000, feed: steadyBooks(), store: redisExchangeStore(redis.url), host: '127.0.0.1',
  logger: log.child({}, { level: 'warn' }),
});
const base = `http://127.0.0.1:${exchange.port}`;
const open = async (name: string) => {
  const r = await fetch(`${base}/api/v1/accounts`, { method: 'POST', body: JSON.stringify({ name, initialCash: '100000000' }) });
  return ((await r.json()) as { id: string }).id;
};
const many = await Promise.all(Array.from({ length: 100 }, (_, i) => open(`bench-${i}`)));
await run(`${CONNECTIONS} connections, 100 accounts`, base, many.map((id) => `/api/v1/accounts/${id}/orders`));
const one = await open('bench-one');
await run(`${CONNECTIONS} connections, 1 account `, base, [`/api/v1/accounts/${one}/orders`]);
await exchange.stop();
await redis.stop();
