/**
 * What the coordinator (`fleet.ts`) and its worker processes (`worker.ts`) say to each other over
 * the IPC channel: commands, answers and a worker's raw counters (histograms as sparse buckets,
 * merged and turned into percentiles by `stats.ts`).
 */
import type { SparseHistogram } from './histogram.ts';
import type { Source } from './plan.ts';

/** Open sockets to `url` (a `ws://host:port/path` URL), spread over `sources` (local addresses and their port slices). */
export interface ConnectCommand {
  kind: 'connect';
  url: string;
  sockets: number;
  sources: Source[];
  /** new connects per second from this worker; absent: all at once */
  rampPerSecond?: number;
  deadlineMs: number;
  /** clients closed or failing before the deadline connect again by themselves */
  retry: boolean;
}

/** Every client drops its socket and connects again at once; with `resume` it passes `since` (and `epoch` once known). */
export interface ReconnectCommand {
  kind: 'reconnect';
  resume: boolean;
  deadlineMs: number;
  /** `ws://` URLs the clients move to, in turn (absent: where they were) */
  urls?: string[];
}

/** A command to a worker. */
export type Command = ConnectCommand | ReconnectCommand | { kind: 'stats' } | { kind: 'resetWindow' } | { kind: 'stop' };

/** A command with the id its answer carries. */
export type Request = Command & { id: number };

/** How an operation (connect, reconnect) ended in one worker. */
export interface OperationResult {
  /** clients the operation covered */
  clients: number;
  /** of them, how many were open (and, for a resume, had their resume message) when it ended */
  ready: number;
  /** ms from the command to the end (all ready, or the deadline) */
  ms: number;
}

/** An answer to a request. */
export type Answer = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };

/** Sent once by a worker when it is ready for commands. */
export interface Hello {
  hello: true;
  pid: number;
}

/** A close code's count and the reasons of its first few closes. */
export interface CloseCount {
  count: number;
  reasons: string[];
}

/** The least and greatest of some numbers, null when there were none. */
export type Range = { min: number; max: number } | null;

/** One worker's counters since it started, and its window's histograms (since the last `resetWindow`). */
export interface WorkerStats {
  pid: number;
  clients: number;
  open: number;
  /** `portsBusy`: local ports found taken (a listener elsewhere, a TIME_WAIT too young) and skipped at once, not failures */
  connects: { attempts: number; ok: number; failed: Record<string, number>; portsBusy: number };
  /** TCP errors on sockets already upgraded, by code (ECONNRESET, ...) */
  socketErrors: Record<string, number>;
  /** close frames received by code (1006: the TCP connection ended without one) */
  closes: Record<string, CloseCount>;
  messages: { total: number; byType: Record<string, number> };
  window: {
    startedAt: number;
    messages: number;
    /** price latency: receive time minus the event's `ts` */
    latency: SparseHistogram;
    /** prices whose `ts` was in the future (clocks apart), recorded as 0 */
    latencyNegative: number;
    /** connect attempt to 101 */
    connectTime: SparseHistogram;
    /** connect attempt to the resume message */
    resumeTime: SparseHistogram;
  };
  sequence: {
    duplicates: number;
    gaps: number;
    missing: number;
    snapshots: number;
    clientsWithDuplicates: number;
    clientsWithGaps: number;
    /** the latest seq of each client (how far behind the slowest is) */
    last: Range;
  };
  resumes: {
    total: number;
    recovered: number;
    notRecovered: number;
    /** clients whose latest connection got its resume message */
    clientsResumed: number;
    /** the `since` each client sent last */
    since: Range;
    /** the `seq` of each client's latest resume message */
    seq: Range;
  };
  retries: number;
}
