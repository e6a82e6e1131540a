/**
 * What the operator CLI reads and asks of the gateway: bet series snapshots (live and final),
 * the event log, and retry requests. Two adapters, matching the gateway's stores: Redis
 * (`gateway-records-redis.ts`) and the embedded journal in DATA_DIR (`gateway-records-file.ts`).
 */
import type { BetRecord } from '../../adapters/store/bet-history/port.ts';
import type { LoggedEvent, Sequenced } from '../../adapters/store/event-log/port.ts';
import type { PendingIntent } from '../../adapters/store/intents/port.ts';

/** One stored bet series snapshot. */
export interface StoredBet {
  /** the series id (its first bet's id): the key it is stored under */
  id: string;
  snapshot: unknown;
  live: boolean;
}

/** How a retry request was handed over. */
export interface RetryDelivery {
  /** `redis`: published on the channel; `file`: written to the request folder */
  via: 'redis' | 'file';
  /** gateways that received it (Redis), or whether a gateway picked the file up (1) or not yet (0) */
  receivers: number;
}

/** Reads (and the one request) of the gateway's stores. */
export interface GatewayRecords {
  /** where the records are, for messages */
  readonly where: string;
  liveBets(): Promise<StoredBet[]>;
  /** the chain stored under `id`; null when none */
  bet(id: string): Promise<StoredBet | null>;
  /** the bet's history record (settlement evidence); null when the history does not hold it */
  record(betId: string): Promise<BetRecord | null>;
  /** events with seq > `since`, oldest first, at most `limit` */
  eventsSince(since: number, limit: number): Promise<Array<Sequenced<LoggedEvent>>>;
  /** transactions the gateway recorded as being landed (docs/architecture.md#landing-transactions) */
  intents(): Promise<PendingIntent[]>;
  /** asks the running gateway to retry chain `id` now */
  requestRetry(id: string): Promise<RetryDelivery>;
  close(): Promise<void>;
}
