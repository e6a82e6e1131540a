/** In-memory BetHistoryStore (tests, and the state behind the embedded file store). Lost on restart. */
import { byIdDescending, type BetHistoryStore, type BetRecord } from './port.ts';

/** A memory store: the port plus synchronous access for the file store built on it. */
export interface MemoryBetHistory extends BetHistoryStore {
  putNow(record: BetRecord): void;
  /** ids removed */
  pruneNow(cutoffMs: number): string[];
  /** every record held (compaction) */
  all(): BetRecord[];
}

/** Creates an empty in-memory bet history. */
export function createMemoryBetHistory(): MemoryBetHistory {
  const records = new Map<string, BetRecord>();
  const byBettor = new Map<string, Set<string>>();
  const copy = (r: BetRecord): BetRecord => structuredClone(r);

  const remove = (id: string): void => {
    const r = records.get(id);
    if (!r) return;
    records.delete(id);
    const ids = byBettor.get(r.bettor);
    ids?.delete(id);
    if (ids?.size === 0) byBettor.delete(r.bettor);
  };

  return {
    putNow(record) {
      const old = records.get(record.id);
      if (old && old.bettor !== record.bettor) remove(record.id);
      records.set(record.id, copy(record));
      let ids = byBettor.get(record.bettor);
      if (!ids) byBettor.set(record.bettor, (ids = new Set()));
      ids.add(record.id);
    },
    pruneNow(cutoffMs) {
      const gone = [...records.values()].filter((r) => r.openedAt < cutoffMs).map((r) => r.id);
      gone.forEach(remove);
      return gone;
    },
    all: () => [...records.values()].map(copy),
    async put(record) {
      this.putNow(record);
    },
    async get(id) {
      const r = records.get(id);
      return r ? copy(r) : null;
    },
    async pageOf(bettor, limit, beforeId) {
      const before = beforeId === undefined ? null : BigInt(beforeId);
      return [...(byBettor.get(bettor) ?? [])]
        .filter((id) => before === null || BigInt(id) < before)
        .map((id) => records.get(id) as BetRecord)
        .sort(byIdDescending)
        .slice(0, limit)
        .map(copy);
    },
    async closedSince(sinceMs) {
      return [...records.values()].filter((r) => r.closedAt !== null && r.closedAt >= sinceMs).map(copy);
    },
    async pruneOpenedBefore(cutoffMs) {
      return this.pruneNow(cutoffMs).length;
    },
    async close() {},
  };
}
