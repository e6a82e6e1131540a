/**
 * Load from `wrk`, a C load generator, for the read routes: on 2 cores a Node load generator
 * saturates before a fast server does, and then measures itself rather than the server.
 *
 * `ensureWrk()` finds `wrk` on PATH or installs Debian's package (`apt-get install -y wrk`, again
 * after `apt-get update` when that fails; through sudo when not root); when it still cannot be
 * had, it says why, and the benchmark prints its rows as skipped. `measureWithWrk()` runs a
 * warm-up, then the measured run, and reads the CPU time the server process used meanwhile
 * (/proc for another process, `process.cpuUsage()` when the server is this process).
 */
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { cpuMs } from './measure.ts';
import { setTimeout as sleep } from 'node:timers/promises';

/** How a wrk run is shaped. */
export interface WrkOptions {
  /** wrk threads (-t); 1 by default: wrk's one thread keeps one core, the server the other */
  threads?: number;
  /** keep-alive connections (-c), 32 by default */
  connections?: number;
  /** measured seconds (-d), 5 by default */
  seconds?: number;
  /** seconds of an unmeasured run first (JIT, connections), 1 by default; 0 for none */
  warmupSeconds?: number;
  /** before the warm-up, wait up to this many seconds (20 by default) for the rest of the machine to use under a quarter of a core */
  quietWaitSeconds?: number;
  /** called (and awaited) after the warm-up, right before the measured run (to reset counters) */
  beforeMeasured?: () => void | Promise<void>;
  /** a wrk Lua script (-s) shaping the requests, e.g. POSTs over several paths */
  script?: string;
  /** processes pinned to wrk's core when the run is pinned (e.g. the Redis the server uses, so the server has its core alone) */
  pinBesideWrk?: number[];
  /** pin the server (all its threads) to the first core and wrk to the second (taskset), so neither run lands on a different split of the cores than the other; on by default where taskset and two cores exist */
  pin?: boolean;
}

/** What one wrk run printed. */
export interface WrkResult {
  requests: number;
  /** the run's length as wrk measured it */
  seconds: number;
  /** wrk's `Requests/sec` */
  perSecond: number;
  /** latency percentiles from `--latency`, in ms */
  latencyMs: { p50: number; p75: number; p90: number; p99: number };
  /** responses whose status was not 2xx or 3xx */
  non2xx3xx: number;
  socketErrors: { connect: number; read: number; write: number; timeout: number };
  /** non-2xx/3xx responses plus socket errors */
  errors: number;
}

/** A measured wrk run with the server's CPU time. */
export interface WrkMeasurement extends WrkResult {
  /** CPU time (user + system) the server process used during the measured run, in ms */
  serverCpuMs: number;
  /** serverCpuMs per request, in µs */
  cpuUsPerRequest: number;
  /** CPU time wrk itself used during the measured run, in ms, and per request in µs */
  wrkCpuMs: number;
  wrkCpuUsPerRequest: number;
  /** cores busy during the run (on average) with anything but the server and wrk: other processes of the machine */
  otherCores: number;
  /** the server ran on the first core and wrk (with `pinBesideWrk`) on the second */
  pinned: boolean;
}

/** Whether wrk can be run: its path, or why not. */
export type WrkAvailability = { ok: true; path: string; installed: boolean } | { ok: false; reason: string };

/** The executable `name` in a PATH directory, or null. */
export function findOnPath(name: string, path = process.env.PATH ?? ''): string | null {
  for (const dir of path.split(':').filter(Boolean)) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return null;
}

const INSTALL_TIMEOUT_MS = 300_000;

/** Runs an apt-get step (through sudo when not root); returns null when it worked, else why not. */
function aptGet(args: string[]): string | null {
  const asRoot = process.getuid?.() === 0;
  if (!asRoot && !findOnPath('sudo')) return 'not root and no sudo';
  const [cmd, argv] = asRoot ? ['apt-get', args] : ['sudo', ['-n', 'apt-get', ...args]];
  const r = spawnSync(cmd, argv, {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    encoding: 'utf8',
    timeout: INSTALL_TIMEOUT_MS,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (r.error) return `${cmd} ${argv.join(' ')}: ${r.error.message}`;
  if (r.status !== 0) return `${cmd} ${argv.join(' ')} exited ${r.status ?? r.signal}: ${(r.stderr || r.stdout).trim().split('\n').slice(-2).join(' / ')}`;
  return null;
}

let availability: WrkAvailability | undefined;

/** Finds wrk on PATH, or installs Debian's `wrk`; never throws (the reason is in the answer). */
export function ensureWrk(): WrkAvailability {
  if (availability) return availability;
  const found = findOnPath('wrk');
  if (found) return (availability = { ok: true, path: found, installed: false });
  console.log('wrk is not on PATH: installing Debian package wrk');
  const install = ['install', '-y', '-q', 'wrk'];
  let failed = aptGet(install);
  if (failed !== null) {
    const again = aptGet(['update', '-q']) ?? aptGet(install);
    failed = again === null ? null : `${failed}; then ${again}`;
  }
  const after = findOnPath('wrk');
  availability = after
    ? { ok: true, path: after, installed: true }
    : { ok: false, reason: `wrk is not installed and could not be (${failed ?? 'installed, yet not on PATH'})` };
  return availability;
}

const TIME_UNITS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** wrk's time (`240.00us`, `1.20ms`, `2.00s`, `1.00m`) in ms. */
function timeMs(text: string): number {
  const m = /^([\d.]+)(us|ms|s|m|h)$/.exec(text);
  if (!m) throw new Error(`wrk: unreadable time ${text}`);
  return Number(m[1]) * (TIME_UNITS[m[2] as string] as number);
}

/** Reads wrk's report (run with `--latency`); throws when a figure it always prints is missing. */
export function parseWrkOutput(text: string): WrkResult {
  const need = (re: RegExp, what: string): RegExpExecArray => {
    const m = re.exec(text);
    if (!m) throw new Error(`wrk: no ${what} in its output:\n${text}`);
    return m;
  };
  const percentile = (p: number) => timeMs(need(new RegExp(`^\\s*${p}%\\s+(\\S+)\\s*$`, 'm'), `${p}% latency`)[1] as string);
  const total = need(/^\s*(\d+) requests in (\S+),/m, 'request count');
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  const socketErrors = {
    connect: Number(socket?.[1] ?? 0),
    read: Number(socket?.[2] ?? 0),
    write: Number(socket?.[3] ?? 0),
    timeout: Number(socket?.[4] ?? 0),
  };
  const non2xx3xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0);
  return {
    requests: Number(total[1]),
    seconds: timeMs(total[2] as string) / 1000,
    perSecond: Number(need(/^Requests\/sec:\s+([\d.]+)/m, 'Requests/sec')[1]),
    latencyMs: { p50: percentile(50), p75: percentile(75), p90: percentile(90), p99: percentile(99) },
    non2xx3xx,
    socketErrors,
    errors: non2xx3xx + socketErrors.connect + socketErrors.read + socketErrors.write + socketErrors.timeout,
  };
}

const DEFAULTS = { threads: 1, connections: 32, seconds: 5, warmupSeconds: 1, quietWaitSeconds: 20, pin: true };

/** Whether runs can be pinned: taskset on PATH and at least two cores. */
const canPin = (): boolean => findOnPath('taskset') !== null && availableParallelism() >= 2;

/** Pins every thread of process `pid` to `core` (taskset -a); false when it could not. */
function pinProcess(pid: number, core: number): boolean {
  return spawnSync('taskset', ['-a', '-p', '-c', String(core), String(pid)], { stdio: 'ignore' }).status === 0;
}

/** CPU time (user + system) the machine has spent busy so far, summed over cores, in ms (Linux /proc/stat; steal counts as busy). */
export function machineBusyMs(): number {
  const f = (readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already in user)
  return [0, 1, 2, 5, 6, 7].reduce((sum, i) => sum + (f[i] ?? 0), 0) * 10;
}

const STAT_MARK = 'wrk-shell-stat:';

/**
 * One wrk run against `url` for `seconds` (requests shaped by `luaScript` when given), with the CPU time wrk used (ms); killed if it runs
 * 15 s past that. wrk runs under a shell that prints its own /proc stat once wrk has exited: the
 * shell's children's times are wrk's.
 */
export function runWrk(
  wrk: string,
  url: string,
  threads: number,
  connections: number,
  seconds: number,
  core?: number,
  luaScript?: string,
): Promise<WrkResult & { wrkCpuMs: number }> {
  const args = ['--latency', '-t', String(threads), '-c', String(connections), '-d', `${seconds}s`, ...(luaScript === undefined ? [] : ['-s', luaScript]), url];
  const run = core === undefined ? '"$0" "$@"' : `taskset -c ${core} "$0" "$@"`;
  const script = `${run}; s=$?; echo "${STAT_MARK}$(cat /proc/$$/stat)"; exit $s`;
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', script, wrk, ...args], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(
      () => {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      },
      (seconds + 15) * 1000,
    );
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`wrk ${args.join(' ')} exited ${code ?? signal}: ${err || out}`));
      try {
        const stat = out.slice(out.lastIndexOf(STAT_MARK) + STAT_MARK.length);
        const fields = stat.split(') ')[1]?.split(' ') ?? [];
        // fields 16 and 17 of /proc/<pid>/stat: cutime, cstime (clock ticks of 10 ms)
        resolve({ ...parseWrkOutput(out), wrkCpuMs: (Number(fields[13]) + Number(fields[14])) * 10 });
      } catch (e) {
        reject(e instanceof Error ? e : new Error(String(e)));
      }
    });
  });
}

/** CPU time a process has used so far in ms: `'self'` is this process (precise), a pid is read from /proc (10 ms steps). */
function serverCpuMs(server: number | 'self'): number {
  if (server === 'self') {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  }
  return cpuMs(server);
}

/**
 * Waits (at most `maxSeconds`) until, over half a second, the machine is busy with less than a
 * quarter of a core besides `server`: the machine may be shared, and a run measured while
 * something else takes a core measures that too. Resolves with the last reading.
 */
export async function quiet(server: number | 'self', maxSeconds: number): Promise<number> {
  const deadline = performance.now() + maxSeconds * 1000;
  for (;;) {
    const busy0 = machineBusyMs();
    const cpu0 = serverCpuMs(server);
    const t0 = performance.now();
    await sleep(500);
    const others = (machineBusyMs() - busy0 - (serverCpuMs(server) - cpu0)) / (performance.now() - t0);
    if (others < 0.25 || performance.now() > deadline) return others;
  }
}

/**
 * A warm-up run, then the measured run against `url`, with the CPU time `server` (a pid, or
 * `'self'` when the server runs in this process) used during the measured run.
 */
export async function measureWithWrk(wrk: string, url: string, server: number | 'self', options: WrkOptions = {}): Promise<WrkMeasurement> {
  const o = { ...DEFAULTS, ...options };
  const pinned = o.pin && server !== 'self' && canPin() && pinProcess(server, 0) && (o.pinBesideWrk ?? []).every((pid) => pinProcess(pid, 1));
  const wrkCore = pinned ? 1 : undefined;
  await quiet(server, o.quietWaitSeconds);
  if (o.warmupSeconds > 0) await runWrk(wrk, url, o.threads, o.connections, o.warmupSeconds, wrkCore, o.script);
  await o.beforeMeasured?.();
  const cpu0 = serverCpuMs(server);
  const busy0 = machineBusyMs();
  const r = await runWrk(wrk, url, o.threads, o.connections, o.seconds, wrkCore, o.script);
  const cpu = serverCpuMs(server) - cpu0;
  const busy = machineBusyMs() - busy0;
  const perRequest = (ms: number) => (ms * 1000) / Math.max(1, r.requests);
  return {
    ...r,
    serverCpuMs: cpu,
    cpuUsPerRequest: perRequest(cpu),
    wrkCpuUsPerRequest: perRequest(r.wrkCpuMs),
    otherCores: Math.max(0, busy - cpu - r.wrkCpuMs) / 1000 / r.seconds,
    pinned,
  };
}
