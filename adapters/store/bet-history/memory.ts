/**
 * In-memory BetHistoryStore (tests, and the state behind the embedded file store). Lost on restart.
 *
 * Each record is kept as one string (docs/operations.md#memory): `<openedAt>,<closedAt>,` (empty
 * while open) then its JSON in the compact form of `../json-text.ts`. That is about a third of the
 * heap of the object it was, whose every read was a deep copy anyway; a read parses it, and the
 * scans by time (the leaderboard, pruning) read only the two numbers in front. A bettor with one
 * bet is indexed by that bet's id alone, not by a set of one. A store built on it may swap a
 * record's JSON for a reference of its own and read it back through `readText` (the embedded
 * journal keeps where the record lies in its file).
 */
import { compactJson, flatText, keptJson } from '../json-text.ts';
import { byIdDescending, type BetHistoryStore, type BetRecord } from './port.ts';

/** A memory store: the port plus synchronous access for the file store built on it. */
export interface MemoryBetHistory extends BetHistoryStore {
  putNow(record: BetRecord): void;
  /** ids removed */
  pruneNow(cutoffMs: number): string[];
  /** every record held (compaction) */
  all(): BetRecord[];
  /** Swaps the JSON kept for record `id` for `text`, read back by the store's `readText`. */
  replaceText(id: string, text: string): void;
}

/** The string a record is kept as. */
const keep = (r: BetRecord): string => flatText(`${r.openedAt},${r.closedAt ?? ''},${compactJson(JSON.stringify(r))}`);
/** where a kept record's JSON starts */
const textAt = (kept: string): number => kept.indexOf(',', kept.indexOf(',') + 1) + 1;
const openedAtOf = (kept: string): number => Number(kept.slice(0, kept.indexOf(',')));
/** closedAt of a kept record; null while open */
function closedAtOf(kept: string): number | null {
  const from = kept.indexOf(',') + 1;
  const to = kept.indexOf(',', from);
  return to === from ? null : Number(kept.slice(from, to));
}

/** Creates an empty in-memory bet history; `readText` reads a kept record's JSON back (`keptJson` unless its holder swaps in references). */
export function createMemoryBetHistory(readText: (text: string) => string = keptJson): MemoryBetHistory {
  const records = new Map<string, string>();
  /** The record a kept string holds. */
  const recordOf = (kept: string): BetRecord => JSON.parse(readText(kept.slice(textAt(kept)))) as BetRecord;
  /** ids of each bettor's records: the id itself while it has one */
  const byBettor = new Map<string, string | Set<string>>();
  const idsOf = (bettor: string): string[] => {
    const ids = byBettor.get(bettor);
    return ids === undefined ? [] : typeof ids === 'string' ? [ids] : [...ids];
  };

  const unindex = (bettor: string, id: string): void => {
    const ids = byBettor.get(bettor);
    if (typeof ids === 'string' || ids === undefined) byBettor.delete(bettor);
    else {
      ids.delete(id);
      if (ids.size === 1) byBettor.set(bettor, ids.values().next().value as string);
    }
  };

  const index = (bettor: string, id: string): void => {
    const ids = byBettor.get(bettor);
    if (ids === undefined) byBettor.set(bettor, id);
    else if (typeof ids === 'string') {
      if (ids !== id) byBettor.set(bettor, new Set([ids, id]));
    } else ids.add(id);
  };

  const remove = (id: string): void => {
    const kept = records.get(id);
    if (kept === undefined) return;
    records.delete(id);
    unindex(recordOf(kept).bettor, id);
  };

  return {
    putNow(record) {
      const old = records.get(record.id);
      if (old !== undefined && recordOf(old).bettor !== record.bettor) remove(record.id);
      records.set(record.id, keep(record));
      index(record.bettor, record.id);
    },
    pruneNow(cutoffMs) {
      const gone = [...records].filter(([, kept]) => openedAtOf(kept) < cutoffMs).map(([id]) => id);
      gone.forEach(remove);
      return gone;
    },
    all: () => [...records.values()].map(recordOf),
    replaceText(id, text) {
      const kept = records.get(id);
      if (kept !== undefined) records.set(id, flatText(`${kept.slice(0, textAt(kept))}${text}`));
    },
    async put(record) {
      this.putNow(record);
    },
    async get(id) {
      const kept = records.get(id);
      return kept === undefined ? null : recordOf(kept);
    },
    async pageOf(bettor, limit, beforeId) {
      const before = beforeId === undefined ? null : BigInt(beforeId);
      return idsOf(bettor)
        .filter((id) => before === null || BigInt(id) < before)
        .map((id) => ({ id }))
        .sort(byIdDescending)
        .slice(0, limit)
        .map(({ id }) => recordOf(records.get(id) as string));
    },
    async closedSince(sinceMs) {
      const out: BetRecord[] = [];
      for (const kept of records.values()) {
        const closedAt = closedAtOf(kept);
        if (closedAt !== null && closedAt >= sinceMs) out.push(recordOf(kept));
      }
      return out;
    },
    async pruneOpenedBefore(cutoffMs) {
      return this.pruneNow(cutoffMs).length;
    },
    async close() {},
  };
}
