/**
 * The counters of one worker process: connects, closes, errors, messages by type, retries and the
 * window's histograms (price latency, connect and resume times). Fixed size whatever the traffic:
 * counts and histograms only, nothing per message.
 */
import { MsHistogram } from './histogram.ts';
import type { CloseCount } from './protocol.ts';

// reasons kept per close code: enough to read what the server said, bounded whatever the churn
const REASONS_KEPT = 3;

/** A worker's counters. */
export class Tally {
  attempts = 0;
  connected = 0;
  portsBusy = 0;
  readonly failed = new Map<string, number>();
  readonly socketErrors = new Map<string, number>();
  readonly closes = new Map<number, CloseCount>();
  messages = 0;
  readonly byType = new Map<string, number>();
  resumes = 0;
  recovered = 0;
  notRecovered = 0;
  retries = 0;
  windowStartedAt = Date.now();
  windowMessages = 0;
  latencyNegative = 0;
  readonly latency = new MsHistogram();
  readonly connectTime = new MsHistogram();
  readonly resumeTime = new MsHistogram();

  /** A connect attempt that never reached the upgrade, by `code` (ECONNREFUSED, HTTP_503, DEADLINE, ...). */
  connectFailed(code: string): void {
    bump(this.failed, code);
  }

  /** A TCP error on an upgraded socket. */
  socketError(code: string): void {
    bump(this.socketErrors, code);
  }

  /** A close frame (or 1006 for a connection ended without one). */
  closed(code: number, reason: string): void {
    let entry = this.closes.get(code);
    if (!entry) this.closes.set(code, (entry = { count: 0, reasons: [] }));
    entry.count++;
    if (entry.reasons.length < REASONS_KEPT) entry.reasons.push(reason);
  }

  /** A message of `type` ('' when it had none). */
  message(type: string): void {
    this.messages++;
    this.windowMessages++;
    this.byType.set(type, (this.byType.get(type) ?? 0) + 1);
  }

  /** A price's latency, receive time minus its `ts`. */
  priceLatency(ms: number): void {
    if (ms < 0) this.latencyNegative++;
    this.latency.record(ms);
  }

  /** Starts a new window: histograms and the window's message count from zero. */
  resetWindow(): void {
    this.windowStartedAt = Date.now();
    this.windowMessages = 0;
    this.latencyNegative = 0;
    this.latency.reset();
    this.connectTime.reset();
    this.resumeTime.reset();
  }
}

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}
