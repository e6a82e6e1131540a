/**
 * Private Redis / NATS servers and service processes for one test file, on free loopback
 * ports, so suites that use the fixed NATS subjects or fixed keys never see each other.
 *
 * @example
 *   const nats = await startNatsServer();   // nats://127.0.0.1:<port>, JetStream on
 *   afterAll(() => nats.stop());
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { tempDir } from './temp-dir.ts';

/**
 * Ports for test servers come from 10000-19999, below the kernel's ephemeral range (32768 and up
 * on Linux), each test worker from its own slice of 2000 (by `VITEST_POOL_ID`; other callers
 * share the last slice), handed out in turn and never twice by one process. Fault tests stop a
 * server and start it again on the same port; with ports from the ephemeral range, another
 * worker's `listen(0)` or any outgoing connection could take that port in between and the
 * restarted server would fail to bind, or clients would reach somebody else's server. Ports go
 * out two apart and with the next one free: the local chain serves its subscriptions on its port
 * + 1, as web3.js assumes. 20000 and up stays free for a Redis Cluster node's bus port (port +
 * 10000).
 */
const PORT_BASE = 10_000;
const SLICE = 2_000;
const SLICES = 5;
const slice = (() => {
  const pool = Number(process.env.VITEST_POOL_ID);
  return Number.isInteger(pool) && pool > 0 ? (pool - 1) % (SLICES - 1) : SLICES - 1;
})();
let nextInSlice = 2 * Math.floor((Math.random() * SLICE) / 2);
/** Ports the Fetch standard refuses to connect to ("bad port"): Node's fetch throws on them. 10080 is the one in our range. */
const FETCH_BAD_PORTS = new Set([10080]);

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  for (let tried = 0; tried < SLICE / 2; tried++) {
    const port = PORT_BASE + slice * SLICE + ((nextInSlice += 2) % SLICE);
    if (FETCH_BAD_PORTS.has(port) || FETCH_BAD_PORTS.has(port + 1)) continue;
    if ((await bindable(port)) && (await bindable(port + 1))) return port;
  }
  throw new Error(`no free port left in ${PORT_BASE + slice * SLICE}-${PORT_BASE + (slice + 1) * SLICE - 1}`);
}

export function portOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection({ host, port });
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(500, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

export async function waitForPort(port: number, timeoutMs = 20_000, what = `port ${port}`): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await portOpen(port)) return;
    await sleep(50);
  }
  throw new Error(`${what} did not open within ${timeoutMs} ms`);
}

export interface RunningServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

async function startBinary(bin: string, args: (port: number, dir: string) => string[], scheme: string): Promise<RunningServer> {
  const port = await freePort();
  const dir = tempDir(`${bin}-`);
  const child = spawn(bin, args(port, dir), { stdio: 'ignore' });
  await waitForPort(port, 20_000, bin);
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    port,
    stop: async () => {
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh nats-server with JetStream on a free port. */
export const startNatsServer = (): Promise<RunningServer> =>
  startBinary('nats-server', (port, dir) => ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir], 'nats');

/** The arguments every test redis-server starts with: loopback, `port`, files in `dir`, no RDB snapshots; `extra` after them. */
export const redisServerArgs = (port: number, dir: string, ...extra: string[]): string[] => [
  '--bind',
  '127.0.0.1',
  '--port',
  String(port),
  '--dir',
  dir,
  '--save',
  '',
  ...extra,
];

/** A fresh, empty redis-server on a free port (nothing kept on disk). */
export const startRedisServer = (): Promise<RunningServer> =>
  startBinary('redis-server', (port, dir) => redisServerArgs(port, dir, '--appendonly', 'no'), 'redis');

export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM', graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

export interface ServiceProcess {
  child: ChildProcess;
  /** everything the process printed so far (stdout + stderr) */
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Starts `npm run <script>` (really `tsx bin/<script>.ts`, to skip npm's own start-up) with
 * `env` on top of the current environment, and waits until `readyPort` accepts connections.
 * Without a DATA_DIR in `env` the process gets a fresh temporary one (removed by `stop`), so no
 * test writes into the project's own `.data`.
 */
export async function startService(script: string, env: Record<string, string>, readyPort: number, timeoutMs = 60_000): Promise<ServiceProcess> {
  const ownDir = env.DATA_DIR === undefined ? tempDir(`${script}-data-`) : null;
  const child = spawn(process.execPath, ['--import', 'tsx', `bin/${script}.ts`], {
    env: { ...process.env, LOG_LEVEL: 'info', ...(ownDir ? { DATA_DIR: ownDir } : {}), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: false,
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code, sig) => reject(new Error(`${script} exited early (${code ?? sig}):\n${out.slice(-4000)}`))),
  );
  exited.catch(() => undefined);
  const removeDir = () => {
    if (ownDir) rmSync(ownDir, { recursive: true, force: true });
  };
  try {
    await Promise.race([waitForPort(readyPort, timeoutMs, script), exited]);
  } catch (err) {
    removeDir();
    throw err;
  }
  return {
    child,
    output: () => out,
    stop: async (signal = 'SIGTERM') => {
      await stopChild(child, signal);
      removeDir();
    },
  };
}
