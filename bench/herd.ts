/**
 * A reconnect herd (docs/operations.md#a-reconnect-herd), the gateway beside bare uWS in the same
 * run. For each size in BENCH_HERD_SIZES (`15000,19000`), on a private NATS with a ticker at
 * BENCH_FANOUT_TICKS (10) a second: the server (bare uWS fed by the same subject, then `npm run
 * gateway`: Profile A, the embedded chain, file stores, its JetStream event stream) gets N sockets
 * of the load fleet, runs BENCH_WARMUP_SECONDS (5), is SIGKILLed and started again on the same port
 * and data; once its port is open every client reconnects at the same instant with
 * `?since=<last seq>&epoch=<epoch>` (no jitter: the worst case). Measured from that instant:
 * clients resumed (resume message received) and the time of the slowest, sockets the server closed,
 * events lost or doubled per client (over the whole run), live tick latency from +10 s to +20 s,
 * `GET /api/state` latency (a probe every 25 ms from the herd's start to +20 s; timeouts at 10 s),
 * resident memory at its peak against before the kill, connection attempts the kernel dropped on a
 * full listen queue, consumers on the event stream at their peak, and NATS slow-consumer events in
 * the gateway's log. BENCH_GATEWAY_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=prof") profiles the gateway
 * started after the kill.
 */
import { rmSync } from 'node:fs';
import { managedNats } from '../test/support/managed.ts';
import { probe } from './support/http-probe.ts';
import { percentile, report, sleep, type Row } from './support/measure.ts';
import { bareBroadcaster, broadcastGateway, listenOverflows, rssBytes, startTicker, streamConsumers } from '../test/support/broadcast-world.ts';
import { startFleet, type FleetStats } from '../test/support/ws-load/fleet.ts';
import { measuredGatewayArgs } from './support/stack.ts';
import { tempDir } from '../test/support/temp-dir.ts';

const SIZES = (process.env.BENCH_HERD_SIZES ?? '15000,19000').split(',').map(Number);
const TICKS = Number(process.env.BENCH_FANOUT_TICKS ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 5);
const PER_WORKER = 5_000;
const RESUME_DEADLINE_MS = 60_000;

/** What one server did in one herd. */
interface Herd {
  clients: number;
  resumed: number;
  slowestMs: number;
  p99Ms: number;
  allReadyMs: number;
  closes: string;
  closedByServer: number;
  clientsWithGaps: number;
  duplicates: number;
  liveP99: number;
  stateP99: number;
  stateTimeouts: number;
  rssPeakOverSteady: number;
  overflows: number;
  consumersPeak: number;
  slowConsumers: number;
  bootMs: number;
}

const closesOf = (s: FleetStats) => Object.fromEntries(Object.entries(s.closes).map(([code, c]) => [code, c.count]));

async function herd(kind: 'bare' | 'gateway', natsUrl: string, sockets: number): Promise<Herd> {
  const dataDir = tempDir('bench-herd-');
  const server =
    kind === 'bare'
      ? await bareBroadcaster(natsUrl)
      : await broadcastGateway({ natsUrl, dataDir, env: { LOG_LEVEL: 'info' }, nodeArgs: measuredGatewayArgs() });
  await server.start();
  const fleet = await startFleet({ workers: Math.max(2, Math.ceil(sockets / PER_WORKER)) });
  try {
    const connected = await fleet.connect({ url: server.url, sockets, deadlineMs: 120_000, rampPerSecond: 4_000, retry: true });
    if (connected.ready < sockets) throw new Error(`${kind}: only ${connected.ready} of ${sockets} sockets connected`);
    await sleep(WARMUP * 1000);
    const steady = rssBytes(server.pid as number);
    await server.kill();
    const bootStarted = performance.now();
    await server.start();
    const bootMs = performance.now() - bootStarted;
    await sleep(200); // every client has seen its socket end
    const before = await fleet.stats();
    await fleet.resetWindow();
    const overflows = listenOverflows();
    const pid = server.pid as number;
    let rssPeak = rssBytes(pid);
    let consumersPeak = 0;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, rssBytes(pid));
      if (kind === 'gateway')
        streamConsumers(natsUrl, 'GW_EVENTS').then(
          (n) => (consumersPeak = Math.max(consumersPeak, n)),
          () => undefined,
        );
    }, 250);
    const state = probe(server.base, '/api/state', 25);
    const started = performance.now();
    const resumed = await fleet.reconnectAll({ resume: true, deadlineMs: RESUME_DEADLINE_MS });
    const afterHerd = await fleet.stats();
    await sleep(Math.max(0, 10_000 - (performance.now() - started)));
    await fleet.resetWindow();
    await sleep(10_000);
    const live = await fleet.stats();
    const probed = state.stop();
    clearInterval(sampler);
    const closed0 = closesOf(before);
    const closed1 = closesOf(live);
    const closedNow = Object.entries(closed1)
      .map(([code, n]) => [code, n - (closed0[code] ?? 0)] as const)
      .filter(([, n]) => n > 0);
    const log = server.output();
    return {
      clients: resumed.clients,
      resumed: afterHerd.resumes.clientsResumed,
      slowestMs: afterHerd.window.resumeTime.max ?? Number.NaN,
      p99Ms: afterHerd.window.resumeTime.p99 ?? Number.NaN,
      allReadyMs: resumed.ready === resumed.clients ? resumed.ms : Number.NaN,
      closes: closedNow.map(([code, n]) => `${code}x${n}`).join(' '),
      closedByServer: closedNow.filter(([code]) => code !== '1006').reduce((a, [, n]) => a + n, 0),
      clientsWithGaps: live.sequence.clientsWithGaps,
      duplicates: live.sequence.duplicates,
      liveP99: live.window.latency.p99 ?? Number.NaN,
      stateP99: percentile(probed.ms, 99),
      stateTimeouts: probed.timeouts,
      rssPeakOverSteady: rssPeak / steady,
      overflows: listenOverflows() - overflows,
      consumersPeak,
      slowConsumers: (log.match(/slow ?consumer/gi) ?? []).length,
      bootMs,
    };
  } finally {
    await fleet.stop();
    await server.terminate();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const nats = await managedNats();
const ticker = await startTicker(nats.url, TICKS);
try {
  for (const size of SIZES) {
    const base = await herd('bare', nats.url, size);
    const gw = await herd('gateway', nats.url, size);
    const line = (h: Herd) =>
      `resumed ${h.resumed}/${h.clients}, slowest ${h.slowestMs} ms (p99 ${h.p99Ms}), all ready after ${h.allReadyMs.toFixed(0)} ms, closes ${h.closes || 'none'}, ` +
      `clients with gaps ${h.clientsWithGaps}, duplicates ${h.duplicates}, live p99 ${h.liveP99} ms, state p99 ${h.stateP99.toFixed(1)} ms (${h.stateTimeouts} timeouts), ` +
      `RSS peak/steady ${h.rssPeakOverSteady.toFixed(2)}x, listen overflows ${h.overflows}, stream consumers peak ${h.consumersPeak}, slow consumers ${h.slowConsumers}, boot ${h.bootMs.toFixed(0)} ms`;
    const rows: Row[] = [
      {
        measure: `slowest resume, ${size} sockets at once`,
        value: gw.slowestMs,
        unit: 'ms',
        baseline: { name: 'bare uWS', value: base.slowestMs },
        goal: '100 % resumed within 10 s',
        detail: `gateway: ${line(gw)}; bare: ${line(base)}`,
      },
      { measure: 'clients resumed', value: gw.resumed, unit: 'clients', baseline: { name: 'bare uWS', value: base.resumed }, goal: `all ${size}` },
      { measure: 'sockets closed by the server during the herd', value: gw.closedByServer, unit: 'sockets', goal: '0' },
      { measure: 'clients with a gap, duplicates', value: gw.clientsWithGaps + gw.duplicates, unit: '', goal: '0' },
      { measure: 'live tick latency p99 from +10 s', value: gw.liveP99, unit: 'ms', baseline: { name: 'bare uWS', value: base.liveP99 }, goal: '<= 2000 ms' },
      {
        measure: 'GET /api/state p99 during the herd',
        value: gw.stateP99,
        unit: 'ms',
        baseline: { name: 'bare uWS', value: base.stateP99 },
        goal: '<= 200 ms',
      },
      { measure: 'RSS peak / steady', value: gw.rssPeakOverSteady, unit: 'x', baseline: { name: 'bare uWS', value: base.rssPeakOverSteady }, goal: '<= 1.5x' },
      { measure: 'NATS slow-consumer events', value: gw.slowConsumers, unit: '', goal: '0' },
    ];
    report(`reconnect herd, ${size} sockets, ${TICKS} ticks/s`, rows);
  }
} finally {
  await ticker.stop();
  await nats.stop();
}
