import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal, type JournalRecord } from './journal.ts';

const dirs: string[] = [];
const freshDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'journal-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const record = (slot: number, sig: string, byte: number): JournalRecord => ({
  slot,
  signature: sig,
  err: null,
  accounts: [
    { address: `acc${slot}`, lamports: 1_000_000_000_000_000_000n + BigInt(slot), owner: 'owner', executable: false, data: Uint8Array.from([byte, 1, 2]) },
    { address: `gone${slot}`, lamports: null, owner: '11111111111111111111111111111111', executable: false, data: new Uint8Array() },
  ],
});

describe('Journal', () => {
  it('replays what was appended and synced, bigints and deletions included', () => {
    const dir = freshDir();
    const j = new Journal(dir);
    expect(j.load()).toEqual({ snapshot: null, records: [] });
    j.append(record(1, 'a', 7));
    j.append({ slot: 2, err: { InstructionError: [0, { Custom: 6018 }] } });
    j.sync();
    j.close();
    const again = new Journal(dir).load();
    expect(again.records).toEqual([record(1, 'a', 7), { slot: 2, err: { InstructionError: [0, { Custom: 6018 }] } }]);
  });

  it('cuts a torn last line (killed mid-write) and keeps appending after it', () => {
    const dir = freshDir();
    const j = new Journal(dir);
    j.load();
    j.append(record(1, 'a', 1));
    j.close();
    appendFileSync(join(dir, 'journal.log'), '{"s":2,"g":"b","a":[["acc2","5"');
    const k = new Journal(dir);
    expect(k.load().records).toHaveLength(1);
    k.append(record(3, 'c', 3));
    k.close();
    expect(new Journal(dir).load().records.map((r) => r.signature)).toEqual(['a', 'c']);
  });

  it('refuses a journal damaged in the middle rather than silently losing transactions', () => {
    const dir = freshDir();
    const j = new Journal(dir);
    j.load();
    j.append(record(1, 'a', 1));
    j.append(record(2, 'b', 2));
    j.close();
    const text = readFileSync(join(dir, 'journal.log'), 'utf8');
    writeFileSync(join(dir, 'journal.log'), text.replace('"s":1', '"s":1,,'));
    expect(() => new Journal(dir).load()).toThrow(/corrupt/);
  });

  it('compaction writes the snapshot and empties the journal', () => {
    const dir = freshDir();
    const j = new Journal(dir);
    j.load();
    j.append(record(1, 'a', 1));
    j.compact({ slot: 9, statuses: [['a', { slot: 1, err: null }]] }, Uint8Array.from([1, 2, 3, 4]));
    expect(j.length).toBe(0);
    expect(statSync(join(dir, 'journal.log')).size).toBe(0);
    j.append(record(10, 'b', 2));
    j.close();
    const loaded = new Journal(dir).load();
    expect(loaded.snapshot?.meta).toEqual({ slot: 9, statuses: [['a', { slot: 1, err: null }]] });
    expect([...loaded.snapshot!.svm]).toEqual([1, 2, 3, 4]);
    expect(loaded.records.map((r) => r.signature)).toEqual(['b']);
  });
});
