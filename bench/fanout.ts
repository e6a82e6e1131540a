/**
 * Fan-out of price ticks to many sockets (docs/operations.md#a-reconnect-herd), the gateway beside
 * bare uWS fed by the same NATS in the same run. For each size in BENCH_FANOUT_SIZES
 * (`10000,19000`): a private NATS with JetStream and a ticker at BENCH_FANOUT_TICKS (10) ticks a
 * second; then, one after the other, the bare baseline (`test/support/bare-ws-server.ts`) and the
 * gateway (`npm run gateway` on that NATS and a chain process, file stores), each in its own
 * process with N sockets of the load fleet (`test/support/ws-load/`: raw sockets in worker processes,
 * spread over 127.0.0.x source addresses) connected, BENCH_WARMUP_SECONDS (5) of warm-up, then
 * BENCH_SECONDS (20) measured: the server's CPU per delivered message (its /proc CPU over the
 * messages the fleet received), delivered % (messages over sockets x ticks sent), tick latency
 * p50/p99 (receive time minus the tick's `ts`), the fleet's own CPU per message, and the cores the
 * rest of the machine used (BENCH_GATEWAY_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=prof", profiles the gateway). Ratios are baseline over gateway for the CPU (above 1: the gateway is
 * cheaper) and gateway over baseline for latency.
 */
import { managedNats } from '../test/support/managed.ts';
import { cpuMs, machineIdleMs, report, sleep, type Row } from './support/measure.ts';
import { bareBroadcaster, broadcastGateway, startTicker, type Ticker } from '../test/support/broadcast-world.ts';
import { measuredGatewayArgs, startChain } from './support/stack.ts';
import { startFleet } from '../test/support/ws-load/fleet.ts';

const SIZES = (process.env.BENCH_FANOUT_SIZES ?? '10000,19000').split(',').map(Number);
const TICKS = Number(process.env.BENCH_FANOUT_TICKS ?? 10);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 5);
/** sockets per fleet worker (each holds at most ~20,000 descriptors) */
const PER_WORKER = 5_000;

/** What one server did for one size. */
interface FanOut {
  cpuUsPerMessage: number;
  deliveredPct: number;
  p50: number;
  p99: number;
  fleetUsPerMessage: number;
  otherCores: number;
  delivered: number;
  closes: string;
}

/** N sockets on `url`, measured for SECONDS; `pid` is the server's. */
async function measure(url: string, pid: number, sockets: number, ticker: Ticker): Promise<FanOut> {
  const fleet = await startFleet({ workers: Math.max(2, Math.ceil(sockets / PER_WORKER)) });
  try {
    const connected = await fleet.connect({ url, sockets, deadlineMs: 120_000, rampPerSecond: 4_000, retry: true });
    if (connected.ready < sockets) throw new Error(`only ${connected.ready} of ${sockets} sockets connected to ${url}`);
    await sleep(WARMUP * 1000);
    await fleet.resetWindow();
    const before = { server: cpuMs(pid), fleet: (await fleet.stats()).cpuMsTotal, sent: ticker.sent, idle: machineIdleMs(), at: performance.now() };
    await sleep(SECONDS * 1000);
    const stats = await fleet.stats();
    const after = { server: cpuMs(pid), fleet: stats.cpuMsTotal, sent: ticker.sent, idle: machineIdleMs(), at: performance.now() };
    const delivered = stats.window.messages;
    const elapsedMs = after.at - before.at;
    const busyMs = 2 * elapsedMs - (after.idle - before.idle);
    const serverMs = after.server - before.server;
    const fleetMs = after.fleet - before.fleet;
    return {
      cpuUsPerMessage: (serverMs * 1000) / Math.max(1, delivered),
      deliveredPct: (100 * delivered) / Math.max(1, sockets * (after.sent - before.sent)),
      p50: stats.window.latency.p50 ?? Number.NaN,
      p99: stats.window.latency.p99 ?? Number.NaN,
      fleetUsPerMessage: (fleetMs * 1000) / Math.max(1, delivered),
      otherCores: Math.max(0, busyMs - serverMs - fleetMs) / elapsedMs,
      delivered,
      closes: Object.entries(stats.closes)
        .map(([code, c]) => `${code}x${c.count}`)
        .join(' '),
    };
  } finally {
    await fleet.stop();
  }
}

const detail = (f: FanOut) =>
  `delivered ${f.deliveredPct.toFixed(1)} % (${f.delivered}), latency p50/p99 ${f.p50}/${f.p99} ms, fleet ${f.fleetUsPerMessage.toFixed(2)} µs/msg, other load ${f.otherCores.toFixed(2)} cores${f.closes ? `, closes ${f.closes}` : ''}`;

const nats = await managedNats();
const ticker = await startTicker(nats.url, TICKS);
const chain = await startChain({ GW_EXPIRY_SECONDS: '15' });
try {
  for (const size of SIZES) {
    const bare = await bareBroadcaster(nats.url);
    await bare.start();
    const base = await measure(bare.url, bare.pid as number, size, ticker).finally(() => bare.terminate());
    const gateway = await broadcastGateway({
      natsUrl: nats.url,
      dataDir: chain.dataDir,
      chainUrl: chain.directUrl,
      env: { LOG_LEVEL: 'warn' },
      nodeArgs: measuredGatewayArgs(),
    });
    await gateway.start();
    const gw = await measure(gateway.url, gateway.pid as number, size, ticker).finally(() => gateway.terminate());
    const rows: Row[] = [
      {
        measure: `CPU per delivered message, ${size} sockets`,
        value: gw.cpuUsPerMessage,
        unit: 'µs',
        baseline: { name: 'bare uWS', value: base.cpuUsPerMessage },
        goal: 'efficiency (baseline / gateway) >= 0.9',
        detail: `efficiency ${(base.cpuUsPerMessage / gw.cpuUsPerMessage).toFixed(3)}x; gateway: ${detail(gw)}; bare: ${detail(base)}`,
      },
      { measure: `delivered, ${size} sockets`, value: gw.deliveredPct, unit: '%', baseline: { name: 'bare uWS', value: base.deliveredPct }, goal: '>= 99.5 %' },
      { measure: `tick latency p99, ${size} sockets`, value: gw.p99, unit: 'ms', baseline: { name: 'bare uWS', value: base.p99 }, goal: '<= 1.2x' },
    ];
    report(`fan-out at ${TICKS} ticks/s, ${size} sockets (measured ${SECONDS} s)`, rows);
  }
} finally {
  await ticker.stop();
  await chain.stop();
  await nats.stop();
}
