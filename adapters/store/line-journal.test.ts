import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LineJournal } from './line-journal.ts';

const root = mkdtempSync(join(tmpdir(), 'line-journal-'));
let n = 0;
const fresh = () => join(root, `${n++}.log`);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('LineJournal', () => {
  it('group-commits: a thousand concurrent durable appends all resolve, in order in the file', async () => {
    const path = fresh();
    const { journal } = LineJournal.open(path);
    await Promise.all(Array.from({ length: 1_000 }, (_, i) => journal.appendDurably(JSON.stringify({ i }))));
    journal.close();
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { i: number }).i)).toEqual(Array.from({ length: 1_000 }, (_, i) => i));
  });

  it('releases appends waiting for a sync once a rewrite has put the state on disk', async () => {
    const path = fresh();
    const { journal } = LineJournal.open(path);
    const pending = [journal.appendDurably('{"a":1}'), journal.appendDurably('{"a":2}')];
    journal.rewrite(['{"state":2}']);
    await Promise.all(pending);
    await journal.appendDurably('{"a":3}');
    journal.close();
    expect(readFileSync(path, 'utf8')).toBe('{"state":2}\n{"a":3}\n');
    const again = LineJournal.open(path);
    expect(again.lines).toEqual(['{"state":2}', '{"a":3}']);
    again.journal.close();
  });

  it('cuts a torn last line, and refuses damage before the last line', () => {
    const path = fresh();
    const { journal } = LineJournal.open(path);
    journal.append('{"ok":1}');
    journal.close();
    appendFileSync(path, '{"torn":');
    const reopened = LineJournal.open(path);
    expect(reopened.lines).toEqual(['{"ok":1}']);
    reopened.journal.append('{"ok":2}');
    reopened.journal.close();
    appendFileSync(path, 'garbage\n{"ok":3}\n');
    expect(() => LineJournal.open(path)).toThrow(/corrupt/);
  });
});
