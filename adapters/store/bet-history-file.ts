/**
 * BetHistoryStore in DATA_DIR (the embedded default): the records live in memory and every `put`
 * appends the whole record as one JSON line of `history.log` (the last line of an id wins), so a
 * kill -9 loses nothing that was answered. Pruning rewrites the file with what is left.
 */
import { LineJournal } from './line-journal.ts';
import { parseRecord, type BetHistoryStore } from './bet-history.ts';
import { createMemoryBetHistory } from './bet-history-memory.ts';

/** Opens (or creates) the history file at `path` and loads it; damaged lines are skipped. */
export function openFileBetHistory(path: string): BetHistoryStore {
  const memory = createMemoryBetHistory();
  const { journal, lines } = LineJournal.open(path);
  for (const line of lines) {
    const record = parseRecord(line);
    if (record) memory.putNow(record);
  }
  return {
    async put(record) {
      memory.putNow(record);
      await journal.appendDurably(JSON.stringify(record));
    },
    get: (id) => memory.get(id),
    pageOf: (bettor, limit, beforeId) => memory.pageOf(bettor, limit, beforeId),
    closedSince: (sinceMs) => memory.closedSince(sinceMs),
    async pruneOpenedBefore(cutoffMs) {
      const gone = memory.pruneNow(cutoffMs);
      // compact whenever the file holds more lines than records (superseded lines or pruned ones)
      const all = memory.all();
      if (gone.length > 0 || journal.length > all.length) journal.rewrite(all.map((r) => JSON.stringify(r)));
      return gone.length;
    },
    async close() {
      journal.close();
    },
  };
}
