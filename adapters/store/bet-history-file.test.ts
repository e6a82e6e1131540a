import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openFileBetHistory } from './bet-history-file.ts';
import { betHistoryContract, record } from '../../test/support/bet-history-contract.ts';

const dir = mkdtempSync(join(tmpdir(), 'bet-history-'));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

betHistoryContract('file', () => openFileBetHistory(join(dir, `h${n++}`, 'history.log')));

describe('file bet history', () => {
  it('reads back what it wrote after a reopen, also after pruning', async () => {
    const path = join(dir, 'reopen', 'history.log');
    const a = openFileBetHistory(path);
    await a.put(record('1', { openedAt: 1 }));
    await a.put(record('2'));
    await a.put(record('2', { status: 2, closedAt: 1_763_700_020_000, netUnits: '-100000000' }));
    await a.close();
    const b = openFileBetHistory(path);
    expect((await b.get('2'))?.status).toBe(2);
    expect(await b.pruneOpenedBefore(1_000)).toBe(1);
    await b.close();
    const c = openFileBetHistory(path);
    expect(await c.get('1')).toBeNull();
    expect((await c.pageOf(record('2').bettor, 10)).map((r) => r.id)).toEqual(['2']);
    await c.close();
  });
});
