/**
 * In-memory BetHistoryStore (tests, and the state behind the embedded file store). Lost on restart.
 * Each record is kept as its JSON text in the compact form of `../json-text.ts`
 * (docs/operations.md#memory): about a third of the heap of the object it was (whose every read
 * was a deep copy anyway), and its own copy; a read parses it.
 * A bettor with one bet is indexed by that bet's id alone, not by a set of one.
 */
import { keepJson, keptJson } from '../json-text.ts';
import { byIdDescending, type BetHistoryStore, type BetRecord } from './port.ts';

/** A memory store: the port plus synchronous access for the file store built on it. */
export interface MemoryBetHistory extends BetHistoryStore {
  putNow(record: BetRecord): void;
  /** ids removed */
  pruneNow(cutoffMs: number): string[];
  /** every record held (compaction) */
  all(): BetRecord[];
}

/** A record as kept: its text, and what is filtered on without parsing it. */
interface Kept {
  json: string;
  bettor: string;
  openedAt: number;
  closedAt: number | null;
}

/** Creates an empty in-memory bet history. */
export function createMemoryBetHistory(): MemoryBetHistory {
  const records = new Map<string, Kept>();
  /** ids of each bettor's records: the id itself while it has one */
  const byBettor = new Map<string, string | Set<string>>();
  const parse = (k: Kept): BetRecord => JSON.parse(keptJson(k.json)) as BetRecord;
  const idsOf = (bettor: string): string[] => {
    const ids = byBettor.get(bettor);
    return ids === undefined ? [] : typeof ids === 'string' ? [ids] : [...ids];
  };

  const remove = (id: string): void => {
    const r = records.get(id);
    if (!r) return;
    records.delete(id);
    const ids = byBettor.get(r.bettor);
    if (typeof ids === 'string' || ids === undefined) byBettor.delete(r.bettor);
    else {
      ids.delete(id);
      if (ids.size === 1) byBettor.set(r.bettor, ids.values().next().value as string);
    }
  };

  const index = (bettor: string, id: string): void => {
    const ids = byBettor.get(bettor);
    if (ids === undefined) byBettor.set(bettor, id);
    else if (typeof ids === 'string') {
      if (ids !== id) byBettor.set(bettor, new Set([ids, id]));
    } else ids.add(id);
  };

  return {
    putNow(record) {
      const old = records.get(record.id);
      if (old && old.bettor !== record.bettor) remove(record.id);
      records.set(record.id, { json: keepJson(JSON.stringify(record)), bettor: record.bettor, openedAt: record.openedAt, closedAt: record.closedAt });
      index(record.bettor, record.id);
    },
    pruneNow(cutoffMs) {
      const gone = [...records].filter(([, r]) => r.openedAt < cutoffMs).map(([id]) => id);
      gone.forEach(remove);
      return gone;
    },
    all: () => [...records.values()].map(parse),
    async put(record) {
      this.putNow(record);
    },
    async get(id) {
      const r = records.get(id);
      return r ? parse(r) : null;
    },
    async pageOf(bettor, limit, beforeId) {
      const before = beforeId === undefined ? null : BigInt(beforeId);
      return idsOf(bettor)
        .filter((id) => before === null || BigInt(id) < before)
        .map((id) => ({ id }))
        .sort(byIdDescending)
        .slice(0, limit)
        .map(({ id }) => parse(records.get(id) as Kept));
    },
    async closedSince(sinceMs) {
      return [...records.values()].filter((r) => r.closedAt !== null && r.closedAt >= sinceMs).map(parse);
    },
    async pruneOpenedBefore(cutoffMs) {
      return this.pruneNow(cutoffMs).length;
    },
    async close() {},
  };
}
