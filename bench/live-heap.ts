/**
 * The whole gateway process's JS heap per live bet, as an operator sees it (issue goal: <= 2 KB).
 * Unlike bench/bet-heap.ts (the bet runtime alone, in this process), this counts everything a
 * bet leaves in `npm run gateway`: the chain mirror, the stores, the event log, the history, the
 * metrics. The gateway runs as its own process (Profile A, test mode) on `npm run chain`, with a
 * bet window of an hour (nothing settles while it is measured), once on the embedded stores and
 * once on Redis. Its heap is read from outside over the inspector, after two full collections
 * (bench/support/inspector.ts), three times a second apart at each of four points (the median: a
 * single reading also counts whatever is in flight at that moment, a settlement scan's list of the
 * open bets, a price tick being stored, a compilation): 100 wallets made and funded, BENCH_HEAP_WALLETS
 * (2000) wallets, 100 of them with a live bet, all of them with a live bet. The figure is the
 * growth between the last two per added bet; the same growth between the first two, per wallet
 * without a bet, is printed beside it so that the two costs can be told apart. The part of each
 * growth that is compiled code and bytecode is printed too: the JIT is still warming up after 100
 * bets, and what it compiles is not held per bet (docs/operations.md#benchmarks).
 * BENCH_HEAP_SNAPSHOT=<dir> also writes a heap snapshot per row at each of the last two points, so
 * that what the added bets hold can be told apart by comparing the two.
 */
import { join } from 'node:path';
import { heapAfterGc, inspectArgs, writeHeapSnapshot, type HeapReading } from './support/inspector.ts';
import { JsonClient } from '../test/support/json-client.ts';
import { pool, report, sleep, until, type Row } from './support/measure.ts';
import { startBenchRedis, startChain, startGatewayProcess } from './support/stack.ts';
import { fundedWallets as wallets } from '../test/support/funded-wallets.ts';
import { freePort, type RunningServer } from '../test/support/servers.ts';

const WALLETS = Number(process.env.BENCH_HEAP_WALLETS ?? 2000);
const FIRST = Math.min(100, Math.floor(WALLETS / 2));
const SNAPSHOT_DIR = process.env.BENCH_HEAP_SNAPSHOT;
const IN_FLIGHT = 32;
const WINDOW = { GW_EXPIRY_SECONDS: '3600' };
/** a quiet moment before each reading, so that what a request started (landing, relay, history) is done */
const QUIET_MS = 2_000;
/** readings at each point, a second apart; the median is taken */
const SAMPLES = 3;

/** Heap readings of one gateway process: at FIRST and at WALLETS wallets, then live bets. */
interface Readings {
  wallets: [HeapReading, HeapReading];
  bets: [HeapReading, HeapReading];
}

/** One bet from each address, IN_FLIGHT at a time. */
async function bet(client: JsonClient, addresses: string[]): Promise<void> {
  await pool(addresses, IN_FLIGHT, async (address, i) => {
    const r = await client.call('POST', '/api/bet', { address, side: i % 2 ? 'DOWN' : 'UP', amountUnits: '100000000' });
    if (r.status !== 200 || typeof r.body?.id !== 'string') throw new Error(`bet refused: ${JSON.stringify(r)}`);
  });
}

/** Runs the four steps on a fresh chain and a gateway on `redis` (null: the embedded stores). */
async function measure(redis: RunningServer | null, name: string): Promise<Readings> {
  const chain = await startChain(WINDOW);
  const port = await freePort();
  const gateway = await startGatewayProcess(chain, redis, { ...WINDOW, GW_PROFILE: 'A', SMART_MODE: 'test' }, inspectArgs(port));
  const client = new JsonClient(gateway.base, IN_FLIGHT);
  const heap = async () => {
    await sleep(QUIET_MS);
    const readings: HeapReading[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      if (i > 0) await sleep(1_000);
      readings.push(await heapAfterGc(port));
    }
    return readings.sort((a, b) => a.used - b.used)[Math.floor(SAMPLES / 2)] as HeapReading;
  };
  try {
    await until('a price', async () => (await client.call('GET', '/api/price')).status === 200, 30_000);
    const first = await wallets(client, FIRST);
    const w0 = await heap();
    const rest = await wallets(client, WALLETS - FIRST);
    const w1 = await heap();
    await bet(client, first);
    const b0 = await heap();
    if (SNAPSHOT_DIR) await writeHeapSnapshot(port, join(SNAPSHOT_DIR, `live-heap-${name}-${FIRST}.heapsnapshot`));
    await bet(client, rest);
    const b1 = await heap();
    if (SNAPSHOT_DIR) await writeHeapSnapshot(port, join(SNAPSHOT_DIR, `live-heap-${name}-${WALLETS}.heapsnapshot`));
    return { wallets: [w0, w1], bets: [b0, b1] };
  } finally {
    client.close();
    await gateway.stop();
    await chain.stop();
  }
}

const MB = (r: HeapReading) => `${(r.used / 1024 / 1024).toFixed(1)} MB`;
/** growth per added wallet or bet, of the heap or of its code part */
const per = ([a, b]: [HeapReading, HeapReading], part: keyof HeapReading = 'used') => (b[part] - a[part]) / (WALLETS - FIRST);

function row(stores: string, r: Readings): Row {
  return {
    measure: `JS heap per live bet, gateway process, ${stores}`,
    value: per(r.bets),
    unit: 'B',
    goal: '<= 2048 B',
    detail:
      `heap ${MB(r.bets[0])} at ${FIRST} live bets, ${MB(r.bets[1])} at ${WALLETS}, of the growth ${per(r.bets, 'code').toFixed(0)} B per bet compiled code and bytecode (the JIT warming up, not held per bet); ` +
      `${per(r.wallets).toFixed(0)} B per wallet made and funded without a bet (${MB(r.wallets[0])} at ${FIRST} wallets, ${MB(r.wallets[1])} at ${WALLETS}; code ${per(r.wallets, 'code').toFixed(0)} B)`,
  };
}

const embedded = await measure(null, 'embedded');
const redis = await startBenchRedis();
let onRedis: Readings;
try {
  onRedis = await measure(redis, 'redis');
} finally {
  await redis.stop();
}
report(`gateway heap per live bet (${WALLETS} wallets, window 3600 s; gateway process on the chain process)`, [
  row('embedded stores', embedded),
  row('Redis', onRedis),
]);
