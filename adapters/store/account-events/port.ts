/**
 * Port: one bounded event log per exchange account, behind the native account stream
 * (docs/exchange-api.md#account-stream). Only enrolled accounts (a stream has connected for them
 * once) are logged, so accounts nobody streams cost nothing. Each account's log numbers its own events (`seq` 1, 2, 3,
 * ...) and names its history with an epoch, like the gateway's event log
 * (`adapters/store/event-log/port.ts`), whose adapters these reuse. Adapters: `memory.ts` (the
 * embedded default: lost on restart, so a resume after one is told `recovered: false`) and `redis.ts`
 * (kept across restarts, shared by exchange processes on one Redis).
 */
import type { EventLog, LoggedEvent, Sequenced } from '../event-log/port.ts';

/** Default number of events kept per account. */
export const DEFAULT_ACCOUNT_EVENT_CAPACITY = 5_000;

/** The per-account logs. */
export interface AccountEventLogs<E extends LoggedEvent> {
  /** where the logs live (docs/exchange-api.md#account-stream says what each keeps) */
  readonly kind: 'memory' | 'redis';
  /** The log of one account (made on first use): reads, epoch, single appends. */
  of(accountId: string): EventLog<E>;
  /** Appends each group's events to its account's log, all at once (one round trip; consecutive seqs per account, in order); answers the groups sequenced. */
  appendMany(groups: ReadonlyArray<{ accountId: string; events: readonly E[] }>): Promise<Array<Array<Sequenced<E>>>>;
  /** Enrolls an account (a stream connected for it): its events are logged from now on. */
  enroll(accountId: string): Promise<void>;
  /** The enrolled accounts, and a version that changes whenever one is enrolled. */
  enrolled(): Promise<{ version: number; accounts: string[] }>;
  /** The version of the enrolled set alone (cheap: a refresh reads the set only when it moved). */
  enrolledVersion(): Promise<number>;
  /** Drops an account's log with its history and its enrollment (the account was deleted). */
  delete(accountId: string): Promise<void>;
  close(): Promise<void>;
}
