/**
 * A worker's share of the load: its logical clients, the operations that (re)connect them within a
 * deadline, and its counters as `WorkerStats`. The process edge (IPC, exit) is `worker.ts`.
 *
 * @example
 *   const load = new Load();
 *   await load.connect({ kind: 'connect', url: 'ws://127.0.0.1:8080/api/ws', sockets: 1000, sources: [{ address: '127.0.0.2', ports: [32768, 60999] }], deadlineMs: 30_000, retry: false });
 *   load.stats();
 */
import { Client, type LocalSource, type Operation, type SinceMode, type Target } from './client.ts';
import { PortCursor } from './ports.ts';
import { openFileLimit } from './proc.ts';
import type { ConnectCommand, OperationResult, Range, ReconnectCommand, WorkerStats } from './protocol.ts';
import { Tally } from './tally.ts';

// descriptors a worker keeps for itself (IPC, stdio, the runtime's own) besides its sockets
const SPARE_DESCRIPTORS = 64;
// "all at once" still starts sockets in slices, so the loop reads answers while thousands connect
const BATCH = 500;

/** An operation in progress: counts its ready clients and ends when all are, or at its deadline. */
class RunningOperation implements Operation {
  private ready = 0;
  private finished = false;
  private readonly startedAt = performance.now();
  private resolve: (result: OperationResult) => void = () => undefined;
  readonly done = new Promise<OperationResult>((r) => (this.resolve = r));

  constructor(
    private readonly clients: readonly Client[],
    readonly deadline: number,
    readonly resume: boolean,
    readonly retry: boolean,
  ) {
    // stays armed after an early end: stragglers of later retries are given up at the deadline too
    setTimeout(() => this.expire(), Math.max(0, deadline - Date.now()));
    if (clients.length === 0) this.finish();
  }

  readyChanged(delta: 1 | -1): void {
    this.ready += delta;
    if (this.ready === this.clients.length) this.finish();
  }

  private expire(): void {
    for (const client of this.clients) client.giveUp(this);
    this.finish();
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.resolve({ clients: this.clients.length, ready: this.ready, ms: Math.round(performance.now() - this.startedAt) });
  }
}

/** The clients of one worker process. */
export class Load {
  private readonly clients: Client[] = [];
  // one cursor per source address for the worker's life: ports go round across operations
  private readonly ports = new Map<string, PortCursor>();
  readonly tally = new Tally();
  // a reconnect of everything stops ramps still starting an older operation's clients
  private generation = 0;
  private stopped = false;

  /** Opens `sockets` more clients and answers when all are open or the deadline passed. */
  async connect(cmd: ConnectCommand): Promise<OperationResult> {
    const limit = openFileLimit();
    if (limit !== null && this.clients.length + cmd.sockets + SPARE_DESCRIPTORS > limit) {
      throw new Error(`${this.clients.length + cmd.sockets} sockets do not fit this process's limit of ${limit} open files`);
    }
    if (cmd.sources.length === 0) throw new Error('no source address');
    const target = parseTarget(cmd.url);
    const sources = cmd.sources.map((s) => {
      let ports = this.ports.get(s.address);
      if (!ports) this.ports.set(s.address, (ports = new PortCursor(s.ports)));
      return { address: s.address, ports };
    });
    const fresh: Client[] = [];
    for (let i = 0; i < cmd.sockets; i++) fresh.push(new Client(target, sources[(this.clients.length + i) % sources.length] as LocalSource, this.tally));
    this.clients.push(...fresh);
    const op = new RunningOperation(fresh, Date.now() + cmd.deadlineMs, false, cmd.retry);
    this.launch(op, fresh, 'auto', cmd.rampPerSecond);
    return op.done;
  }

  /** Every client drops its socket and connects again at once, with `since` when `resume`. */
  async reconnect(cmd: ReconnectCommand): Promise<OperationResult> {
    this.generation++;
    const urls = cmd.urls;
    if (urls && urls.length > 0) this.clients.forEach((c, i) => c.moveTo(parseTarget(urls[i % urls.length] as string)));
    const op = new RunningOperation(this.clients, Date.now() + cmd.deadlineMs, cmd.resume, true);
    this.launch(op, this.clients, cmd.resume ? 'resume' : 'fresh', undefined);
    return op.done;
  }

  /** Starts `clients` in `op`, all at once (in slices) or `perSecond`. */
  private launch(op: Operation, clients: readonly Client[], mode: SinceMode, perSecond: number | undefined): void {
    const generation = this.generation;
    const startedAt = performance.now();
    let next = 0;
    const step = () => {
      if (this.stopped || generation !== this.generation || Date.now() >= op.deadline) return;
      const due = perSecond === undefined ? next + BATCH : Math.floor(((performance.now() - startedAt) / 1000) * perSecond) + 1;
      for (const end = Math.min(due, clients.length); next < end; next++) (clients[next] as Client).start(op, mode);
      if (next >= clients.length) return;
      if (perSecond === undefined) setImmediate(step);
      else setTimeout(step, 10);
    };
    step();
  }

  /** Starts a new measuring window. */
  resetWindow(): void {
    this.tally.resetWindow();
  }

  /** Closes every socket for good. */
  stop(): void {
    this.stopped = true;
    for (const client of this.clients) client.stop();
  }

  /** The counters, with what is read from the clients themselves. */
  stats(): WorkerStats {
    const t = this.tally;
    let open = 0;
    const counts = { duplicates: 0, gaps: 0, missing: 0, snapshots: 0, clientsWithDuplicates: 0, clientsWithGaps: 0 };
    const last = new Spread();
    let clientsResumed = 0;
    const since = new Spread();
    const resumeSeq = new Spread();
    for (const c of this.clients) {
      if (c.open) open++;
      const s = c.seqs;
      counts.duplicates += s.duplicates;
      counts.gaps += s.gaps;
      counts.missing += s.missing;
      counts.snapshots += s.snapshots;
      if (s.duplicates > 0) counts.clientsWithDuplicates++;
      if (s.gaps > 0) counts.clientsWithGaps++;
      if (c.lastSeq >= 0) last.add(c.lastSeq);
      if (c.sinceSent >= 0) since.add(c.sinceSent);
      if (c.resumedLatest) {
        clientsResumed++;
        resumeSeq.add(c.resumeSeq);
      }
    }
    return {
      pid: process.pid,
      clients: this.clients.length,
      open,
      connects: { attempts: t.attempts, ok: t.connected, failed: Object.fromEntries(t.failed), portsBusy: t.portsBusy },
      socketErrors: Object.fromEntries(t.socketErrors),
      closes: Object.fromEntries([...t.closes].map(([code, c]) => [String(code), { count: c.count, reasons: [...c.reasons] }])),
      messages: { total: t.messages, byType: Object.fromEntries(t.byType) },
      window: {
        startedAt: t.windowStartedAt,
        messages: t.windowMessages,
        latency: t.latency.sparse(),
        latencyNegative: t.latencyNegative,
        connectTime: t.connectTime.sparse(),
        resumeTime: t.resumeTime.sparse(),
      },
      sequence: { ...counts, last: last.range() },
      resumes: { total: t.resumes, recovered: t.recovered, notRecovered: t.notRecovered, clientsResumed, since: since.range(), seq: resumeSeq.range() },
      retries: t.retries,
    };
  }
}

/** The least and greatest of numbers added one by one. */
class Spread {
  private min = Infinity;
  private max = -Infinity;
  add(n: number): void {
    if (n < this.min) this.min = n;
    if (n > this.max) this.max = n;
  }
  range(): Range {
    return this.min === Infinity ? null : { min: this.min, max: this.max };
  }
}

/** The host, port and path of a `ws://` URL. */
function parseTarget(url: string): Target {
  const u = new URL(url);
  if (u.protocol !== 'ws:') throw new Error(`only ws:// URLs: ${url}`);
  return { host: u.hostname, port: Number(u.port || 80), path: `${u.pathname}${u.search}` };
}
