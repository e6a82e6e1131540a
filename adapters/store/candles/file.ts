/**
 * File candle store (the embedded exchange without Redis): `<DATA_DIR>/exchange/candles.log`,
 * one JSON line `{symbol, candle}` per write (a later line for the same minute replaces the
 * earlier), read back on open. When the file holds twice the candles kept, it is rewritten with
 * only those (atomically). Candles are history, not money: lines are not fsynced, and a torn last
 * line is skipped on open.
 */
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import * as v from 'valibot';
import { writeFileAtomically } from '../file/atomic-file.ts';
import { CandleLine } from './codec.ts';
import { CandleSeries } from './memory.ts';
import { CANDLE_RETENTION, type CandleStore } from './port.ts';

function readLines(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** Opens the candle file at `file` (created on first write), keeping `retention` candles per symbol. */
export function openFileCandleStore(file: string, retention = CANDLE_RETENTION): CandleStore {
  mkdirSync(dirname(file), { recursive: true });
  const series = new CandleSeries(retention);
  let lines = 0;
  for (const text of readLines(file)) {
    if (text.trim() === '') continue;
    const parsed = v.safeParse(CandleLine, safeJson(text));
    if (!parsed.success) continue; // a torn line (a crash mid-append)
    series.put(parsed.output.symbol, parsed.output.candle);
    lines++;
  }
  let compacting: Promise<void> = Promise.resolve();
  return {
    async put(symbol, candle) {
      series.put(symbol, candle);
      await compacting;
      appendFileSync(file, JSON.stringify({ symbol, candle }) + '\n', { mode: 0o600 });
      if (++lines <= 2 * Math.max(series.size(), 100)) return;
      const content = series
        .all()
        .flatMap(([s, list]) => list.map((c) => JSON.stringify({ symbol: s, candle: c }) + '\n'))
        .join('');
      lines = series.size();
      compacting = writeFileAtomically(file, content);
      await compacting;
    },
    range: async (symbol, fromMs, toMs, limit, newest) => series.range(symbol, fromMs, toMs, limit, newest),
    close: () => compacting,
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
