import { appendFileSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LineJournal } from './line-journal.ts';
import { tempDir } from '../../../test/support/temp-dir.ts';

const root = tempDir('line-journal-');
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

  it('streams lines of any length to openEach/readEach, across read chunks, cutting only a torn tail', () => {
    const path = fresh();
    const long = JSON.stringify({ big: 'x'.repeat(3 * 1024 * 1024 + 7) }); // spans several 1 MiB reads
    const { journal } = LineJournal.open(path);
    journal.append('{"n":1}');
    journal.append(long);
    journal.append('{"n":3}');
    journal.close();
    appendFileSync(path, '{"n":');
    const read: string[] = [];
    expect(LineJournal.readEach(path, (l) => read.push(l))).toBe(3);
    expect(read).toEqual(['{"n":1}', long, '{"n":3}']);
    const seen: string[] = [];
    const reopened = LineJournal.openEach(path, (l) => {
      JSON.parse(l); // refuses the torn tail
      seen.push(l);
    });
    expect(reopened.length).toBe(3);
    expect(seen).toEqual(read);
    reopened.append('{"n":4}');
    reopened.close();
    expect(readFileSync(path, 'utf8').endsWith('{"n":3}\n{"n":4}\n')).toBe(true);
    appendFileSync(path, 'garbage\n{"n":5}\n');
    expect(() => LineJournal.openEach(path, (l) => void JSON.parse(l))).toThrow(/corrupt/);
  });
});
