/**
 * File candle store (the embedded exchange without Redis): `<DATA_DIR>/exchange/candles.log`, a
 * line journal (`../file/line-journal.ts`) of `{symbol, candle}` lines, one per write (a later line
 * for the same minute replaces the earlier), read back on open. When the file holds twice the
 * candles kept, it is rewritten with only those (atomically). Candles are history, not money:
 * lines are not fsynced one by one; a torn last line (a kill mid-append) is cut off on open, and a
 * line that is not a candle is skipped (files of earlier versions appended after a torn line; the
 * next compaction drops it), so a damaged candle never keeps the exchange from starting.
 */
import * as v from 'valibot';
import { LineJournal } from '../file/line-journal.ts';
import { CandleLine } from './codec.ts';
import { CandleSeries } from './memory.ts';
import { CANDLE_RETENTION, type CandleStore } from './port.ts';
import { jsonOrUndefined } from '../../../kernel/json.ts';

/** Opens the candle file at `file` (created if missing), keeping `retention` candles per symbol. */
export function openFileCandleStore(file: string, retention = CANDLE_RETENTION): CandleStore {
  const series = new CandleSeries(retention);
  const journal = LineJournal.openEach(file, (line) => {
    const parsed = v.safeParse(CandleLine, jsonOrUndefined(line));
    if (parsed.success) series.put(parsed.output.symbol, parsed.output.candle);
  });
  return {
    async put(symbol, candle) {
      series.put(symbol, candle);
      journal.append(JSON.stringify({ symbol, candle }));
      if (journal.length <= 2 * Math.max(series.size(), 100)) return;
      journal.rewrite(series.all().flatMap(([s, list]) => list.map((c) => JSON.stringify({ symbol: s, candle: c }))));
    },
    range: async (symbol, fromMs, toMs, limit, newest) => series.range(symbol, fromMs, toMs, limit, newest),
    close: async () => journal.close(),
  };
}
