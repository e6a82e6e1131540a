/**
 * A WebSocket load fleet: worker processes (`worker.ts`) each holding thousands of cheap raw
 * sockets to the event stream (docs/gateway-api.md#events), spread over workers and loopback
 * source addresses (`plan.ts`) so one machine can hold tens of thousands under a per-process
 * descriptor limit. The coordinator sends commands and adds the answers up (`stats.ts`).
 *
 * @example
 *   const fleet = await startFleet({ workers: 4, sourceAddresses: ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'] });
 *   await fleet.connect({ url: 'ws://127.0.0.1:8080/api/ws', sockets: 19_000, deadlineMs: 60_000 });
 *   fleet.resetWindow();
 *   ...
 *   const stats = await fleet.stats(); // stats.window.latency.p99, stats.cpuMsTotal, ...
 *   await fleet.reconnectAll({ resume: true, deadlineMs: 60_000 });
 *   await fleet.stop();
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { addLoad, defaultAddresses, shareOf, sourcesOfWorkers, type Source } from './plan.ts';
import { cpuMs, ephemeralPorts } from './proc.ts';
import type { Answer, Command, Hello, OperationResult, WorkerStats } from './protocol.ts';
import { mergeStats, type FleetStats } from './stats.ts';

/** What `stats()` answers (`stats.ts`). */
export type { FleetStats } from './stats.ts';

/** How to start a fleet. */
export interface FleetOptions {
  workers: number;
  /** local source addresses (default one per worker: 127.0.0.2, 127.0.0.3, ...) */
  sourceAddresses?: string[];
  /** how long a worker may take to start [20 000 ms] */
  startTimeoutMs?: number;
  /** Node flags of the workers, e.g. `['--cpu-prof']` to see where a worker's time goes [none] */
  nodeArgs?: string[];
}

/** What to connect. */
export interface ConnectOptions {
  /** `ws://host:port/path` */
  url: string;
  /** sockets added over the whole fleet */
  sockets: number;
  /** new connects per second over the whole fleet; absent: all at once */
  rampPerSecond?: number;
  /** the operation ends when every socket is open or after this many ms; retries stop then too */
  deadlineMs: number;
  /** a client closed or failing before the deadline connects again by itself (with `since` once it has a seq) [false] */
  retry?: boolean;
}

/** How every client reconnects. */
export interface ReconnectOptions {
  /** pass `since` (the last seq received, else the last resume `seq`, else 0) and `epoch` once known; ready means resumed */
  resume: boolean;
  /** the operation ends when every client is ready or after this many ms; retries stop then too */
  deadlineMs: number;
  /** `ws://` URLs the clients move to, in turn (absent: where they were) */
  urls?: string[];
}

/** How an operation ended over the fleet. */
export interface OperationSummary {
  clients: number;
  /** clients open (and resumed, for a resume) at the end */
  ready: number;
  /** ms until the slowest worker ended */
  ms: number;
}

/** A running fleet. */
export interface Fleet {
  /** the workers' process ids */
  readonly pids: number[];
  connect(options: ConnectOptions): Promise<OperationSummary>;
  reconnectAll(options: ReconnectOptions): Promise<OperationSummary>;
  stats(): Promise<FleetStats>;
  /** starts a new measuring window (latency, connect and resume times, window message count) */
  resetWindow(): Promise<void>;
  /** ends every worker (killed when it does not exit by itself within 3 s) */
  stop(): Promise<void>;
}

// beyond an operation's own deadline, what a busy worker may take to answer
const ANSWER_SLACK_MS = 30_000;
const STOP_GRACE_MS = 3_000;
// the project root: workers run with tsx resolved from there, as the project's other processes
const ROOT = join(import.meta.dirname, '..', '..', '..');

/** Starts `workers` worker processes and answers once every one is ready for commands. */
export async function startFleet(options: FleetOptions): Promise<Fleet> {
  const addresses = options.sourceAddresses ?? defaultAddresses(options.workers);
  if (options.workers < 1) throw new Error('a fleet needs a worker');
  await Promise.all(addresses.map(checkBindable));
  const subsets = sourcesOfWorkers(options.workers, addresses, ephemeralPorts());
  const started = await Promise.allSettled(subsets.map(() => WorkerHandle.start(options.startTimeoutMs ?? 20_000, options.nodeArgs ?? [])));
  const workers = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failed = started.find((r) => r.status === 'rejected');
  if (failed) {
    // no half fleet left behind
    await Promise.all(workers.map((w) => w.stop()));
    throw failed.reason;
  }
  const held = workers.map(() => 0);
  let load = new Map<string, number>();
  let stopped = false;

  const stop = async () => {
    stopped = true;
    await Promise.all(workers.map((w) => w.stop()));
  };
  const fleet: Fleet = {
    pids: workers.map((w) => w.pid),
    async connect(o) {
      if (stopped) throw new Error('the fleet is stopped');
      const counts = shareOf(o.sockets, workers.length);
      const next = new Map(load);
      counts.forEach((n, w) => addLoad(next, subsets[w] as Source[], held[w] as number, n));
      load = next;
      counts.forEach((n, w) => (held[w] = (held[w] as number) + n));
      const results = await Promise.all(
        workers.map((w, i) => {
          const n = counts[i] as number;
          const ramp = o.rampPerSecond === undefined ? undefined : (o.rampPerSecond * n) / Math.max(1, o.sockets);
          const cmd: Command = {
            kind: 'connect',
            url: o.url,
            sockets: n,
            sources: subsets[i] as Source[],
            deadlineMs: o.deadlineMs,
            retry: o.retry ?? false,
            ...(ramp === undefined ? {} : { rampPerSecond: ramp }),
          };
          return w.request<OperationResult>(cmd, o.deadlineMs + ANSWER_SLACK_MS);
        }),
      );
      return summarize(results);
    },
    async reconnectAll(o) {
      if (stopped) throw new Error('the fleet is stopped');
      const cmd: Command = { kind: 'reconnect', resume: o.resume, deadlineMs: o.deadlineMs, ...(o.urls ? { urls: o.urls } : {}) };
      return summarize(await Promise.all(workers.map((w) => w.request<OperationResult>(cmd, o.deadlineMs + ANSWER_SLACK_MS))));
    },
    async stats() {
      const parts = await Promise.all(workers.map((w) => w.request<WorkerStats>({ kind: 'stats' }, ANSWER_SLACK_MS)));
      return mergeStats(
        parts,
        workers.map((w) => ({ pid: w.pid, cpuMs: cpuMs(w.pid) })),
      );
    },
    async resetWindow() {
      await Promise.all(workers.map((w) => w.request<null>({ kind: 'resetWindow' }, ANSWER_SLACK_MS)));
    },
    stop,
  };
  return fleet;
}

function summarize(results: readonly OperationResult[]): OperationSummary {
  return {
    clients: results.reduce((a, r) => a + r.clients, 0),
    ready: results.reduce((a, r) => a + r.ready, 0),
    ms: Math.max(0, ...results.map((r) => r.ms)),
  };
}

/** Fails with a clear message when `address` is not a local address of this machine. */
function checkBindable(address: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', (err) => reject(new Error(`source address ${address} cannot be bound: ${err.message}`)));
    srv.listen(0, address, () => srv.close(() => resolve()));
  });
}

type Pending = { resolve: (value: unknown) => void; reject: (err: Error) => void; timer: NodeJS.Timeout };

/** One worker process and its requests in flight. */
class WorkerHandle {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private exited = false;
  private readonly exit: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    readonly pid: number,
  ) {
    this.exit = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        this.exited = true;
        for (const p of this.pending.values()) {
          clearTimeout(p.timer);
          p.reject(new Error(`ws-load worker ${pid} exited (${signal ?? code})`));
        }
        this.pending.clear();
        resolve();
      }),
    );
    // a failed send is answered through its callback; without a listener it would throw here
    child.on('error', () => undefined);
    child.on('message', (message: Answer) => {
      const p = this.pending.get(message.id);
      if (!p) return;
      this.pending.delete(message.id);
      clearTimeout(p.timer);
      if (message.ok) p.resolve(message.result);
      else p.reject(new Error(`ws-load worker ${pid}: ${message.error}`));
    });
  }

  /** Forks a worker and waits for its hello. */
  static start(timeoutMs: number, nodeArgs: readonly string[]): Promise<WorkerHandle> {
    const child = fork(join(import.meta.dirname, 'worker.ts'), [], {
      cwd: ROOT,
      execArgv: [...nodeArgs, '--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`ws-load worker did not start within ${timeoutMs} ms`));
      }, timeoutMs);
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`ws-load worker exited while starting (${code})`));
      });
      child.once('message', (hello: Hello) => {
        clearTimeout(timer);
        resolve(new WorkerHandle(child, hello.pid));
      });
    });
  }

  /** Sends `cmd` and waits at most `timeoutMs` for its answer. */
  request<T>(cmd: Command, timeoutMs: number): Promise<T> {
    if (this.exited || !this.child.connected) return Promise.reject(new Error(`ws-load worker ${this.pid} is gone`));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`ws-load worker ${this.pid} did not answer ${cmd.kind} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject, timer });
      this.child.send({ ...cmd, id }, (err) => {
        if (!err) return;
        this.pending.delete(id);
        clearTimeout(timer);
        reject(err);
      });
    });
  }

  /** Asks the worker to stop, kills it when it does not exit in time, and waits for its exit. */
  async stop(): Promise<void> {
    if (this.exited) return;
    // a worker gone meanwhile is what stopping wants: the send's failure is moot
    if (this.child.connected) this.child.send({ kind: 'stop', id: 0 }, () => undefined);
    const late = setTimeout(() => this.child.kill('SIGKILL'), STOP_GRACE_MS);
    await this.exit;
    clearTimeout(late);
  }
}
