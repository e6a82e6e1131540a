/** In-memory EventLog (embedded default): a ring buffer of the last `capacity` events; seq restarts at 1 on restart. */
import { DEFAULT_EVENT_CAPACITY, DEFAULT_READ_LIMIT, type EventLog, type LoggedEvent, type Sequenced } from './event-log.ts';

/** Creates an empty in-memory event log holding at most `capacity` events. */
export function createMemoryEventLog<E extends LoggedEvent>(capacity = DEFAULT_EVENT_CAPACITY): EventLog<E> {
  if (!Number.isInteger(capacity) || capacity < 1) throw new Error(`event log capacity must be a positive integer, got ${capacity}`);
  const ring: Array<Sequenced<E> | undefined> = new Array(capacity);
  let last = 0;

  return {
    async append(event) {
      const stored = { ...event, seq: ++last } as Sequenced<E>;
      ring[last % capacity] = stored;
      return stored;
    },
    async readSince(since, limit = DEFAULT_READ_LIMIT) {
      const oldest = Math.max(1, last - capacity + 1);
      const out: Array<Sequenced<E>> = [];
      for (let seq = Math.max(oldest, Math.floor(since) + 1); seq <= last && out.length < limit; seq++) {
        out.push(ring[seq % capacity] as Sequenced<E>);
      }
      return out;
    },
    async lastSeq() {
      return last;
    },
  };
}
