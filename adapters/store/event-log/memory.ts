/**
 * In-memory EventLog (unit tests, and the state behind the embedded file store): a ring buffer of
 * the last `capacity` events, each kept as its JSON text in the compact form of `../json-text.ts`
 * (docs/operations.md#memory: an event object copied from the caller's cost several times its
 * text, a hidden class of its own each); a read parses what it returns. A store built on it may
 * swap an event's text for a reference of its own and read it back through `readKept` (the
 * embedded journal keeps where the event lies in its file).
 */
import { randomUUID } from 'node:crypto';
import { flatText, keepJson, keptJson } from '../json-text.ts';
import { DEFAULT_EVENT_CAPACITY, DEFAULT_READ_LIMIT, type EventLog, type LoggedEvent, type Sequenced } from './port.ts';

/** A memory log: the EventLog port plus synchronous access for stores built on it. */
export interface MemoryEventLog<E extends LoggedEvent> extends EventLog<E> {
  /** Assigns the next seq and stores the event, synchronously. */
  appendNow(event: E): Sequenced<E>;
  /** Puts back an event with the seq it had (replaying a journal); seqs must come in increasing order. */
  restore(event: Sequenced<E>): void;
  /** The events held, oldest first (compaction). */
  held(): Array<Sequenced<E>>;
  /** Swaps the text kept for the event of `seq`, if still held, for `text`, read back by the log's `readKept`. */
  replaceText(seq: number, text: string): void;
}

/** How a log reads the event of `seq` back from what it kept: `keptJson` parsed unless its holder swaps in references. */
export type ReadKept<E extends LoggedEvent> = (kept: string, seq: number) => Sequenced<E>;

/**
 * Creates an empty in-memory event log holding at most `capacity` events; its epoch is new unless
 * given (a journal keeps its own); `readKept` reads an event back from what was kept.
 */
export function createMemoryEventLog<E extends LoggedEvent>(
  capacity = DEFAULT_EVENT_CAPACITY,
  epoch: string = randomUUID(),
  readKept: ReadKept<E> = (kept) => JSON.parse(keptJson(kept)) as Sequenced<E>,
): MemoryEventLog<E> {
  if (!Number.isInteger(capacity) || capacity < 1) throw new Error(`event log capacity must be a positive integer, got ${capacity}`);
  /** each slot: the JSON text of the event of a seq, and that seq */
  const ring: Array<string | undefined> = new Array(capacity);
  const seqs: number[] = new Array<number>(capacity).fill(0);
  let last = 0;

  const keep = (event: Sequenced<E>): void => {
    ring[event.seq % capacity] = keepJson(JSON.stringify(event));
    seqs[event.seq % capacity] = event.seq;
  };

  const readSinceNow = (since: number, limit: number): Array<Sequenced<E>> => {
    const oldest = Math.max(1, last - capacity + 1);
    const out: Array<Sequenced<E>> = [];
    for (let seq = Math.max(oldest, Math.floor(since) + 1); seq <= last && out.length < limit; seq++) {
      const text = ring[seq % capacity];
      if (text !== undefined && seqs[seq % capacity] === seq) out.push(readKept(text, seq));
    }
    return out;
  };

  return {
    appendNow(event) {
      const { seq: _ignored, ...fields } = event as E & { seq?: unknown };
      const stored = { ...(fields as E), seq: ++last } as Sequenced<E>;
      keep(stored);
      return stored;
    },
    restore(event) {
      if (event.seq <= last) return;
      last = event.seq;
      keep(event);
    },
    held: () => readSinceNow(0, capacity),
    replaceText(seq, text) {
      if (seqs[seq % capacity] === seq && ring[seq % capacity] !== undefined) ring[seq % capacity] = flatText(text);
    },
    async append(event) {
      return this.appendNow(event);
    },
    async readSince(since, limit = DEFAULT_READ_LIMIT) {
      return readSinceNow(since, limit);
    },
    async lastSeq() {
      return last;
    },
    async firstSeq() {
      const held = readSinceNow(0, 1)[0];
      return held ? held.seq : last + 1;
    },
    async epoch() {
      return epoch;
    },
  };
}
