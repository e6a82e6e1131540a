/**
 * How many faults the profile injected (docs/operations.md#a-fault-profile), by kind: logged at
 * info every few seconds while a profile is on, so a rehearsal shows what the clients went
 * through, and read by tests through `LocalChain.faults`.
 */
import type { Logger } from '../../../../kernel/log.ts';

/** Faults injected since the chain started. */
export interface FaultCounters {
  /** sends answered with their signature and never executed */
  dropped: number;
  /** sends queued to be executed slots later */
  delayed: number;
  /** queued sends whose blockhash expired before their slot came (dropped too) */
  expired: number;
  /** getSignatureStatuses entries answered null while the status lags */
  heldStatuses: number;
  /** signature notifications held back while the status lags */
  heldNotifications: number;
  /** JSON-RPC POSTs answered 429 */
  throttled: number;
  /** PubSub sockets cut */
  cuts: number;
  /** PubSub sockets gone silent (left open, nothing more sent) */
  silenced: number;
  /** transactions shown to `processed` subscribers and then never executed */
  rolledBack: number;
}

/** Counters at zero. */
export function zeroCounters(): FaultCounters {
  return { dropped: 0, delayed: 0, expired: 0, heldStatuses: 0, heldNotifications: 0, throttled: 0, cuts: 0, silenced: 0, rolledBack: 0 };
}

/** Logs the counters every `everyMs` until the returned stop is called. */
export function logCounters(counters: FaultCounters, log: Logger, everyMs: number): () => void {
  const timer = setInterval(() => log.info({ faults: { ...counters } }, 'chain faults injected so far'), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
