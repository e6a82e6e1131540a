/**
 * Three gateways on one NATS (docs/operations.md#sizing), beside three bare uWS processes fed by
 * the same subject in the same run: BENCH_CLUSTER_SOCKETS (12600) sockets on each (a load fleet per
 * server, on source addresses of its own), ticks at BENCH_CLUSTER_TICKS (2) a second. Measured:
 * the fan-out over BENCH_SECONDS (20) (CPU per delivered message of the three servers together,
 * delivered %, latency); then the third server is SIGKILLed and its clients move to the other two
 * at the same instant, with `since` and `epoch`: clients resumed and the slowest, sockets the
 * survivors refused or closed, events lost or doubled on the moved clients (the gateways only: bare
 * servers number their ticks each on its own), `GET /api/state` of a survivor during the move, live
 * latency from +10 s, resident memory of the survivors. The gateways share a chain process and a
 * Redis, as a deployment does. At 19,000 sockets each, the survivors cannot take every moved client
 * (a process holds ~19,500): the row then shows them refused at the survivors' limit while the
 * survivors keep answering.
 */
import type { Managed } from '../test/support/managed.ts';
import { managedNats, managedRedis } from '../test/support/managed.ts';
import { bareBroadcaster, broadcastGateway, rssBytes, startTicker } from '../test/support/broadcast-world.ts';
import { startFleet, type Fleet, type FleetStats } from '../test/support/ws-load/fleet.ts';
import { probe } from './support/http-probe.ts';
import { cpuMs, percentile, report, sleep, type Row } from './support/measure.ts';
import { startChain } from './support/stack.ts';

const SOCKETS = Number(process.env.BENCH_CLUSTER_SOCKETS ?? 12_600);
const TICKS = Number(process.env.BENCH_CLUSTER_TICKS ?? 2);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 5);
const PER_WORKER = 5_000;

type Server = Managed & { url: string; base: string };

/** What three servers did. */
interface Cluster {
  cpuUsPerMessage: number;
  deliveredPct: number;
  p50: number;
  p99: number;
  moved: number;
  resumed: number;
  slowestMs: number;
  refusedOrClosed: string;
  movedGaps: number;
  movedDuplicates: number;
  stateP99: number;
  liveP99: number;
  survivorsRss: string;
}

/** Source addresses of fleet `i`: 127.0.<i+1>.2, .3, ... so fleets never share a local port. */
const addressesOf = (i: number, workers: number) => Array.from({ length: workers }, (_, w) => `127.0.${i + 1}.${w + 2}`);

const closesOf = (s: FleetStats) => Object.fromEntries(Object.entries(s.closes).map(([code, c]) => [code, c.count]));

async function run(servers: Server[], ticker: { sent: number }): Promise<Cluster> {
  const workers = Math.max(2, Math.ceil(SOCKETS / PER_WORKER));
  const fleets: Fleet[] = [];
  try {
    for (const [i, s] of servers.entries()) {
      const fleet = await startFleet({ workers, sourceAddresses: addressesOf(i, workers) });
      fleets.push(fleet);
      const c = await fleet.connect({ url: s.url, sockets: SOCKETS, deadlineMs: 120_000, rampPerSecond: 4_000, retry: true });
      if (c.ready < SOCKETS) throw new Error(`only ${c.ready} of ${SOCKETS} sockets connected to ${s.url}`);
    }
    await sleep(WARMUP * 1000);
    await Promise.all(fleets.map((f) => f.resetWindow()));
    const pids = servers.map((s) => s.pid as number);
    const cpu0 = pids.reduce((a, p) => a + cpuMs(p), 0);
    const sent0 = ticker.sent;
    await sleep(SECONDS * 1000);
    const steady = await Promise.all(fleets.map((f) => f.stats()));
    const cpu1 = pids.reduce((a, p) => a + cpuMs(p), 0);
    const sent = ticker.sent - sent0;
    const delivered = steady.reduce((a, s) => a + s.window.messages, 0);
    const worst = (k: 'p50' | 'p99') => Math.max(...steady.map((s) => s.window.latency[k] ?? Number.NaN));

    const [a, b, c] = servers as [Server, Server, Server];
    const moving = fleets[2] as Fleet;
    await c.kill();
    // every client of the killed server has seen its socket end (its own retries to the dead port are not the survivors')
    for (let i = 0; i < 100 && (await moving.stats()).socketsOpen > 0; i++) await sleep(100);
    const before = await Promise.all(fleets.map((f) => f.stats()));
    await Promise.all(fleets.map((f) => f.resetWindow()));
    const state = probe(a.base, '/api/state', 25);
    const started = performance.now();
    const moved = await moving.reconnectAll({ resume: true, deadlineMs: 60_000, urls: [a.url, b.url] });
    const afterMove = await moving.stats();
    await sleep(Math.max(0, 10_000 - (performance.now() - started)));
    await Promise.all(fleets.map((f) => f.resetWindow()));
    await sleep(10_000);
    const live = await Promise.all(fleets.map((f) => f.stats()));
    const probed = state.stop();
    const failedBefore = (before[2] as FleetStats).connects.failed;
    const refused = Object.entries(afterMove.connects.failed)
      .map(([code, n]) => [code, n - (failedBefore[code] ?? 0)] as const)
      .filter(([code, n]) => n > 0 && code !== 'ABANDONED')
      .map(([code, n]) => `${code}x${n}`)
      .join(' ');
    const closed = live
      .flatMap((s, i) => {
        const was = closesOf(before[i] as FleetStats);
        return Object.entries(closesOf(s)).map(([code, n]) => [code, n - (was[code] ?? 0)] as const);
      })
      .filter(([, n]) => n > 0)
      .map(([code, n]) => `close ${code}x${n}`)
      .join(' ');
    const movedLive = live[2] as FleetStats;
    return {
      cpuUsPerMessage: ((cpu1 - cpu0) * 1000) / Math.max(1, delivered),
      deliveredPct: (100 * delivered) / Math.max(1, servers.length * SOCKETS * sent),
      p50: worst('p50'),
      p99: worst('p99'),
      moved: moved.clients,
      resumed: afterMove.resumes.clientsResumed,
      slowestMs: afterMove.window.resumeTime.max ?? Number.NaN,
      refusedOrClosed: [refused, closed].filter(Boolean).join(' ') || 'none',
      movedGaps: movedLive.sequence.clientsWithGaps,
      movedDuplicates: movedLive.sequence.duplicates,
      stateP99: percentile(probed.ms, 99),
      liveP99: Math.max(...live.map((s) => s.window.latency.p99 ?? Number.NaN)),
      survivorsRss: [a, b].map((s) => `${(rssBytes(s.pid as number) / 2 ** 20).toFixed(0)} MiB`).join(', '),
    };
  } finally {
    await Promise.all(fleets.map((f) => f.stop()));
  }
}

const nats = await managedNats();
const ticker = await startTicker(nats.url, TICKS);
const redis = await managedRedis();
const chain = await startChain({ GW_EXPIRY_SECONDS: '15' });
const started: Server[] = [];
try {
  const bares: Server[] = [];
  for (let i = 0; i < 3; i++) bares.push(await bareBroadcaster(nats.url));
  for (const s of bares) await s.start();
  started.push(...bares);
  const base = await run(bares, ticker);
  for (const s of bares) await s.terminate();
  const gateways: Server[] = [];
  for (let i = 0; i < 3; i++) {
    // one data dir, as a deployment's gateways share their keys; stores in the shared Redis
    const gw = await broadcastGateway({
      natsUrl: nats.url,
      dataDir: chain.dataDir,
      chainUrl: chain.directUrl,
      env: { LOG_LEVEL: 'warn', REDIS_URL: redis.url, GW_NODE_ID: `gw-${i + 1}` },
    });
    gateways.push(gw);
    await gw.start(); // one at a time: the first initialises the contract and the key store secret
    started.push(gw);
  }
  const gw = await run(gateways, ticker);
  for (const s of gateways) await s.terminate();
  const line = (c: Cluster) =>
    `delivered ${c.deliveredPct.toFixed(1)} %, latency p50/p99 ${c.p50}/${c.p99} ms; moved ${c.resumed}/${c.moved} resumed, slowest ${c.slowestMs} ms, refused/closed ${c.refusedOrClosed}, moved clients with gaps ${c.movedGaps}, duplicates ${c.movedDuplicates}, state p99 ${c.stateP99.toFixed(0)} ms, live p99 ${c.liveP99} ms, survivors RSS ${c.survivorsRss}`;
  const rows: Row[] = [
    {
      measure: `CPU per delivered message, 3 x ${SOCKETS} sockets`,
      value: gw.cpuUsPerMessage,
      unit: 'µs',
      baseline: { name: '3 bare uWS', value: base.cpuUsPerMessage },
      goal: 'efficiency (baseline / gateways) >= 0.9',
      detail: `efficiency ${(base.cpuUsPerMessage / gw.cpuUsPerMessage).toFixed(3)}x; gateways: ${line(gw)}; bare: ${line(base)}`,
    },
    { measure: 'delivered', value: gw.deliveredPct, unit: '%', baseline: { name: '3 bare uWS', value: base.deliveredPct }, goal: '>= 99.5 %' },
    { measure: 'moved clients resumed', value: gw.resumed, unit: 'clients', baseline: { name: '3 bare uWS', value: base.resumed }, goal: `all ${SOCKETS}` },
    { measure: 'slowest resume of a moved client', value: gw.slowestMs, unit: 'ms', baseline: { name: '3 bare uWS', value: base.slowestMs }, goal: '<= 10 s' },
    { measure: 'moved clients with a gap, duplicates', value: gw.movedGaps + gw.movedDuplicates, unit: '', goal: '0' },
    { measure: 'GET /api/state p99 on a survivor during the move', value: gw.stateP99, unit: 'ms', baseline: { name: '3 bare uWS', value: base.stateP99 } },
  ];
  report(`three gateways on one NATS, ${SOCKETS} sockets each, ${TICKS} ticks/s, the third killed`, rows);
} finally {
  for (const s of started) await s.terminate().catch(() => undefined);
  await ticker.stop();
  await chain.stop();
  await redis.stop();
  await nats.stop();
}
