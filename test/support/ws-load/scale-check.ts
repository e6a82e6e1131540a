/**
 * A check of the load fleet at scale, run by hand (not a test, not in `npm run bench`): bare uWS
 * event servers (`events-server.ts`, each its own process, the sockets split evenly) publishing
 * `rate` prices a second to `sockets` sockets held by `workers` fleet workers; prints what the
 * clients and the servers spent per delivered message, the latency, then what a reconnect of every
 * socket with `since` costs. One server process holds at most its descriptor limit in sockets.
 * Run: `node --import tsx test/support/ws-load/scale-check.ts [sockets] [workers] [rate] [seconds] [servers]`.
 */
import { freePort } from '../servers.ts';
import { startEventsServer, type EventsServer } from './events-server-handle.ts';
import { startFleet } from './fleet.ts';
import { cpuMs, machineCpuMs, type MachineCpu } from './proc.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const [sockets = 20_000, workers = 4, rate = 10, seconds = 20, servers = 1] = process.argv.slice(2).map(Number);
const serverCpu = (all: readonly EventsServer[]) => all.reduce((a, s) => a + (cpuMs(s.pid) ?? 0), 0);
const machineSince = (from: MachineCpu | null) => {
  const now = machineCpuMs();
  return from && now ? { user: now.user - from.user, system: now.system - from.system, softirq: now.softirq - from.softirq, idle: now.idle - from.idle } : null;
};

const all = await Promise.all(Array.from({ length: servers }, async () => startEventsServer(await freePort())));
const fleet = await startFleet({ workers });
try {
  const share = Math.floor(sockets / servers);
  const opened = await Promise.all(
    all.map((s, i) => fleet.connect({ url: s.url, sockets: i === 0 ? sockets - share * (servers - 1) : share, deadlineMs: 120_000 })),
  );
  console.log(
    'connected',
    opened.reduce((a, o) => a + o.ready, 0),
    'of',
    sockets,
    'in',
    Math.max(...opened.map((o) => o.ms)),
    'ms; server sockets',
    (await Promise.all(all.map((s) => s.command({ cmd: 'state' })))).map((st) => st.sockets),
  );

  await Promise.all(all.map((s) => s.command({ cmd: 'publish', everyMs: 1000 / rate })));
  await sleep(3_000); // warm-up: the first ticks pay for code still compiling
  await fleet.resetWindow();
  const before = await fleet.stats();
  const serverBefore = serverCpu(all);
  const machineBefore = machineCpuMs();
  await sleep(seconds * 1000);
  const machine = machineSince(machineBefore);
  const after = await fleet.stats();
  const serverAfter = serverCpu(all);
  await Promise.all(all.map((s) => s.command({ cmd: 'publish', everyMs: 0 })));

  const delivered = after.window.messages;
  const clientMs = after.cpuMsTotal - before.cpuMsTotal;
  const serverMs = serverAfter - serverBefore;
  console.log({
    delivered,
    perSecond: Math.round(delivered / (after.window.ms / 1000)),
    clientCpuMs: clientMs,
    serverCpuMs: serverMs,
    clientUsPerMessage: +((clientMs * 1000) / delivered).toFixed(2),
    serverUsPerMessage: +((serverMs * 1000) / delivered).toFixed(2),
    clientCpuShare: +(clientMs / after.window.ms).toFixed(3),
    serverCpuShare: +(serverMs / after.window.ms).toFixed(3),
    latency: after.window.latency,
    // the whole machine over the window (ms of CPU, all cores): what the processes above do not account for shows here
    machine,
    sequence: after.sequence,
    socketsOpen: after.socketsOpen,
    failed: after.connects.failed,
    closes: Object.keys(after.closes),
  });

  await sleep(1_000);
  await fleet.resetWindow();
  const cpuBefore = (await fleet.stats()).cpuMsTotal;
  const serverCpuBefore = serverCpu(all);
  const resumed = await fleet.reconnectAll({ resume: true, deadlineMs: 120_000 });
  const r = await fleet.stats();
  console.log({
    reconnectAll: resumed,
    resumeTime: r.window.resumeTime,
    connectTime: r.window.connectTime,
    clientCpuMs: r.cpuMsTotal - cpuBefore,
    serverCpuMs: serverCpu(all) - serverCpuBefore,
    failed: r.connects.failed,
    socketErrors: r.socketErrors,
    retries: r.retries,
    resumes: r.resumes,
    sequence: r.sequence,
  });
} finally {
  await fleet.stop();
  await Promise.all(all.map((s) => s.kill()));
}
