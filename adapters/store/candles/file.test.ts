import { appendFileSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeCandleStore } from './contract.ts';
import { openFileCandleStore } from './file.ts';
import { tempDir } from '../../../test/support/temp-dir.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tempFile = (): string => {
  const d = tempDir('candles-');
  dirs.push(d);
  return join(d, 'exchange', 'candles.log');
};

describeCandleStore('file', true, async () => {
  const file = tempFile();
  return { open: async (retention) => openFileCandleStore(file, retention) };
});

describe('file candle store specifics', () => {
  it('skips a torn last line and compacts the file to the candles kept', async () => {
    const file = tempFile();
    const store = openFileCandleStore(file, 10);
    for (let m = 0; m < 500; m++) await store.put('ETHUSDT', { openTime: m * 60_000, open: '1', high: '1', low: '1', close: '1', books: 1 });
    await store.close();
    expect(readFileSync(file, 'utf8').split('\n').length).toBeLessThan(250);
    appendFileSync(file, '{"symbol":"ETHUSDT","candle":{"openTi');
    const again = openFileCandleStore(file, 10);
    expect((await again.range('ETHUSDT', 0, Number.MAX_SAFE_INTEGER, 100)).map((c) => c.openTime / 60_000)).toEqual([
      490, 491, 492, 493, 494, 495, 496, 497, 498, 499,
    ]);
  });

  it('skips a line that is not a candle before the last (a file of an earlier version) and keeps the rest; a compaction drops it', async () => {
    const file = tempFile();
    const store = openFileCandleStore(file, 10);
    await store.put('ETHUSDT', { openTime: 0, open: '1', high: '1', low: '1', close: '1', books: 1 });
    await store.close();
    appendFileSync(
      file,
      '{"symbol":"ETHUSDT","candle":{"openTi{"symbol":"ETHUSDT"}\n{"symbol":"ETHUSDT","candle":{"openTime":60000,"open":"2","high":"2","low":"2","close":"2","books":1}}\n',
    );
    const again = openFileCandleStore(file, 10);
    expect((await again.range('ETHUSDT', 0, Number.MAX_SAFE_INTEGER, 100)).map((c) => c.close)).toEqual(['1', '2']);
    for (let m = 2; m < 300; m++) await again.put('ETHUSDT', { openTime: m * 60_000, open: '1', high: '1', low: '1', close: '1', books: 1 });
    await again.close();
    expect(readFileSync(file, 'utf8')).not.toContain('openTi{');
  });
});
