import { appendFileSync, existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal, type JournalRecord } from './journal.ts';
import { tempDir } from '../../../test/support/temp-dir.ts';

const dirs: string[] = [];
const freshDir = () => {
  const d = tempDir('journal-');
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
  time: 1_763_700_000 + slot,
  accounts: [
    { address: `acc${slot}`, lamports: 1_000_000_000_000_000_000n + BigInt(slot), owner: 'owner', executable: false, data: Uint8Array.from([byte, 1, 2]) },
    { address: `gone${slot}`, lamports: null, owner: '11111111111111111111111111111111', executable: false, data: new Uint8Array() },
  ],
});

/** Every record a fresh open replays from segment `from` on. */
function replayed(dir: string, from = 0): JournalRecord[] {
  const out: JournalRecord[] = [];
  const j = new Journal(dir);
  j.replay(from, (r) => out.push(r));
  j.close();
  return out;
}

describe('Journal', () => {
  it('replays what was appended and synced, bigints, block times and deletions included', () => {
    const dir = freshDir();
    const j = new Journal(dir);
    expect(j.replay(0, () => undefined)).toBe(0);
    j.append(record(1, 'a', 7));
    j.append({ slot: 2, err: { InstructionError: [0, { Custom: 6018 }] } });
    j.sync();
    j.close();
    expect(replayed(dir)).toEqual([record(1, 'a', 7), { slot: 2, err: { InstructionError: [0, { Custom: 6018 }] } }]);
  });

  it('cuts a torn last line (killed mid-write) and keeps appending after it', () => {
    const dir = freshDir();
    const j = new Journal(dir);
    j.replay(0, () => undefined);
    j.append(record(1, 'a', 1));
    j.close();
    appendFileSync(join(dir, 'journal.1.log'), '{"s":2,"g":"b","a":[["acc2","5"');
    const k = new Journal(dir);
    expect(k.replay(0, () => undefined)).toBe(1);
    k.append(record(3, 'c', 3));
    k.close();
    expect(replayed(dir).map((r) => r.signature)).toEqual(['a', 'c']);
  });

  it('refuses a journal damaged in the middle rather than silently losing transactions', () => {
    const dir = freshDir();
    const j = new Journal(dir);
    j.replay(0, () => undefined);
    j.append(record(1, 'a', 1));
    j.append(record(2, 'b', 2));
    j.close();
    const text = readFileSync(join(dir, 'journal.1.log'), 'utf8');
    writeFileSync(join(dir, 'journal.1.log'), text.replace('"s":1', '"s":1,,'));
    expect(() => new Journal(dir).replay(0, () => undefined)).toThrow(/corrupt/);
  });

  it('rotates to a new segment, replays every segment in order, and drops the folded ones', async () => {
    const dir = freshDir();
    const j = new Journal(dir);
    j.replay(0, () => undefined);
    const waiting = j.appendDurably(record(1, 'a', 1));
    expect(j.rotate()).toBe(2);
    await waiting; // the rotation synced the old segment
    j.append(record(2, 'b', 2));
    expect(j.length).toBe(2);
    expect(j.images).toBe(4);
    expect(j.segments).toBe(2);
    j.close();
    expect(replayed(dir).map((r) => r.signature)).toEqual(['a', 'b']);
    expect(replayed(dir, 2).map((r) => r.signature)).toEqual(['b']);
    expect(readdirSync(dir).sort()).toEqual(['journal.2.log']); // opening from 2 deleted segment 1

    const k = new Journal(dir);
    k.replay(2, () => undefined);
    k.rotate();
    k.append(record(3, 'c', 3));
    k.dropBefore(3);
    expect(k.length).toBe(1);
    k.close();
    expect(readdirSync(dir).sort()).toEqual(['journal.3.log']);
  });

  it('reads the single journal.log of earlier versions as segment 0 and rotates away from it', () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'journal.log'), '{"s":5,"g":"old","e":null,"a":[["acc5","10","owner",0,"AQI="]]}\n');
    const j = new Journal(dir);
    const seen: JournalRecord[] = [];
    j.replay(0, (r) => seen.push(r));
    expect(seen).toEqual([
      {
        slot: 5,
        signature: 'old',
        err: null,
        accounts: [{ address: 'acc5', lamports: 10n, owner: 'owner', executable: false, data: Uint8Array.from([1, 2]) }],
      },
    ]);
    j.append(record(6, 'new', 6)); // still appended to journal.log until the first rotation
    expect(j.rotate()).toBe(1);
    j.dropBefore(1);
    j.close();
    expect(existsSync(join(dir, 'journal.log'))).toBe(false);
  });
});
