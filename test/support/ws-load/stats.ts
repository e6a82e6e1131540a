/**
 * The fleet's statistics: every worker's counters added up, their histograms merged before the
 * percentiles are taken, and each worker's CPU time (read by the coordinator from /proc).
 */
import { MsHistogram, type Percentiles } from './histogram.ts';
import type { CloseCount, Range, WorkerStats } from './protocol.ts';

/** CPU time of one worker process. */
export interface WorkerCpu {
  pid: number;
  /** user + system ms since it started, null when /proc could not be read */
  cpuMs: number | null;
}

/** What the whole fleet saw. Counters run from the start; `window` from the last `resetWindow()`. */
export interface FleetStats {
  workers: number;
  clients: number;
  /** sockets upgraded and not closed */
  socketsOpen: number;
  connects: WorkerStats['connects'];
  socketErrors: Record<string, number>;
  closes: Record<string, CloseCount>;
  messages: { total: number; byType: Record<string, number> };
  window: {
    /** ms since the window began (the oldest worker's start) */
    ms: number;
    messages: number;
    latency: Percentiles;
    latencyNegative: number;
    connectTime: Percentiles;
    resumeTime: Percentiles;
  };
  sequence: WorkerStats['sequence'];
  resumes: WorkerStats['resumes'];
  retries: number;
  cpu: WorkerCpu[];
  /** the workers' CPU ms added up (those that could be read) */
  cpuMsTotal: number;
}

/** Adds up the workers' stats; `cpu` in the workers' order. */
export function mergeStats(parts: readonly WorkerStats[], cpu: WorkerCpu[]): FleetStats {
  const closes: Record<string, CloseCount> = {};
  for (const p of parts) {
    for (const [code, c] of Object.entries(p.closes)) {
      const into = (closes[code] ??= { count: 0, reasons: [] });
      into.count += c.count;
      for (const r of c.reasons) if (into.reasons.length < 3) into.reasons.push(r);
    }
  }
  const seqNames = ['duplicates', 'gaps', 'missing', 'snapshots', 'clientsWithDuplicates', 'clientsWithGaps'] as const;
  const sequence = {
    ...(Object.fromEntries(seqNames.map((k) => [k, sum(parts, (p) => p.sequence[k])])) as Omit<FleetStats['sequence'], 'last'>),
    last: spanOf(parts.map((p) => p.sequence.last)),
  };
  const startedAt = Math.min(...parts.map((p) => p.window.startedAt));
  return {
    workers: parts.length,
    clients: sum(parts, (p) => p.clients),
    socketsOpen: sum(parts, (p) => p.open),
    connects: {
      attempts: sum(parts, (p) => p.connects.attempts),
      ok: sum(parts, (p) => p.connects.ok),
      failed: addCounts(parts.map((p) => p.connects.failed)),
      portsBusy: sum(parts, (p) => p.connects.portsBusy),
    },
    socketErrors: addCounts(parts.map((p) => p.socketErrors)),
    closes,
    messages: { total: sum(parts, (p) => p.messages.total), byType: addCounts(parts.map((p) => p.messages.byType)) },
    window: {
      ms: parts.length === 0 ? 0 : Date.now() - startedAt,
      messages: sum(parts, (p) => p.window.messages),
      latency: MsHistogram.from(parts.map((p) => p.window.latency)).summary(),
      latencyNegative: sum(parts, (p) => p.window.latencyNegative),
      connectTime: MsHistogram.from(parts.map((p) => p.window.connectTime)).summary(),
      resumeTime: MsHistogram.from(parts.map((p) => p.window.resumeTime)).summary(),
    },
    sequence,
    resumes: {
      total: sum(parts, (p) => p.resumes.total),
      recovered: sum(parts, (p) => p.resumes.recovered),
      notRecovered: sum(parts, (p) => p.resumes.notRecovered),
      clientsResumed: sum(parts, (p) => p.resumes.clientsResumed),
      since: spanOf(parts.map((p) => p.resumes.since)),
      seq: spanOf(parts.map((p) => p.resumes.seq)),
    },
    retries: sum(parts, (p) => p.retries),
    cpu,
    cpuMsTotal: cpu.reduce((a, c) => a + (c.cpuMs ?? 0), 0),
  };
}

function sum<T>(items: readonly T[], of: (t: T) => number): number {
  return items.reduce((a, t) => a + of(t), 0);
}

function addCounts(maps: ReadonlyArray<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of maps) for (const [k, n] of Object.entries(m)) out[k] = (out[k] ?? 0) + n;
  return out;
}

function spanOf(ranges: readonly Range[]): Range {
  const present = ranges.filter((r): r is NonNullable<Range> => r !== null);
  if (present.length === 0) return null;
  return { min: Math.min(...present.map((r) => r.min)), max: Math.max(...present.map((r) => r.max)) };
}
