/** In-memory per-account event logs (the embedded default and tests): a ring buffer per account, gone on restart. */
import type { LoggedEvent } from '../event-log/port.ts';
import { createMemoryEventLog, type MemoryEventLog } from '../event-log/memory.ts';
import { DEFAULT_ACCOUNT_EVENT_CAPACITY, type AccountEventLogs } from './port.ts';

/** Creates empty logs holding at most `capacity` events per account. */
export function createMemoryAccountEventLogs<E extends LoggedEvent>(capacity = DEFAULT_ACCOUNT_EVENT_CAPACITY): AccountEventLogs<E> {
  const logs = new Map<string, MemoryEventLog<E>>();
  const enrolled = new Set<string>();
  let version = 0;
  const of = (accountId: string): MemoryEventLog<E> => {
    let log = logs.get(accountId);
    if (!log) logs.set(accountId, (log = createMemoryEventLog<E>(capacity)));
    return log;
  };
  return {
    kind: 'memory',
    of,
    async appendMany(groups) {
      return groups.map(({ accountId, events }) => {
        const log = of(accountId);
        return events.map((e) => log.appendNow(e));
      });
    },
    async enroll(accountId) {
      if (!enrolled.has(accountId)) version++;
      enrolled.add(accountId);
    },
    async enrolled() {
      return { version, accounts: [...enrolled] };
    },
    async enrolledVersion() {
      return version;
    },
    async delete(accountId) {
      logs.delete(accountId);
      enrolled.delete(accountId);
    },
    async close() {
      logs.clear();
      enrolled.clear();
    },
  };
}
