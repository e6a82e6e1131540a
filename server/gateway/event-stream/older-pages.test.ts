import { describe, expect, it } from 'vitest';
import type { Sequenced } from '../../../adapters/store/event-log/port.ts';
import { OlderPages } from './older-pages.ts';
import { setTimeout as sleep } from 'node:timers/promises';

type E = { type: 'x' };
/** A log holding `seqs`, answering at most `cut` events per read (a fetch cut short), counting reads. */
function log(seqs: number[], cut = Infinity) {
  const calls: Array<[number, number]> = [];
  return {
    calls,
    read: async (since: number, limit: number): Promise<Array<Sequenced<E>>> => {
      calls.push([since, limit]);
      await sleep(1);
      return seqs
        .filter((s) => s > since)
        .slice(0, Math.min(limit, cut))
        .map((seq) => ({ type: 'x', seq }));
    },
  };
}
const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);

describe('old pages of the event log', () => {
  it('reads a page once for every caller at once, and keeps it', async () => {
    const l = log(range(1, 100));
    const pages = new OlderPages<E>({ read: l.read, size: 10, maxPages: 4 });
    const all = await Promise.all(Array.from({ length: 50 }, () => pages.load(2, 100)));
    expect(l.calls).toEqual([[20, 10]]);
    expect(all.every((p) => p === all[0])).toBe(true);
    expect(all[0]?.seqs).toEqual(range(21, 30));
    expect(JSON.parse(all[0]?.texts[0] as string)).toEqual({ type: 'x', seq: 21 });
    expect(pages.held(2)).toBe(all[0]);
    expect(pages.pageOf(20)).toBe(2);
    expect(pages.pageOf(29)).toBe(2);
  });

  it('continues a read cut short, and proves holes by reading past them', async () => {
    const l = log([...range(1, 12), 15, ...range(18, 40)], 3);
    const pages = new OlderPages<E>({ read: l.read, size: 10, maxPages: 4 });
    const p = await pages.load(1, 40);
    expect(p.seqs).toEqual([11, 12, 15, 18, 19, 20]);
    expect(p.coveredTo).toBe(20);
  });

  it('takes each seq once and in order from a log that hands some twice (an ordered consumer recreated mid-read)', async () => {
    const twice = [11, 12, 13, 12, 13, 14, 15, 16, 17, 18, 19, 20];
    const pages = new OlderPages<E>({
      read: async (since) => twice.filter((s, i) => s > since || i > 2).map((seq) => ({ type: 'x', seq })),
      size: 10,
      maxPages: 4,
    });
    expect((await pages.load(1, 40)).seqs).toEqual(range(11, 20));
  });

  it('fails a page on an empty answer while the log holds newer events, and reads it again next time', async () => {
    let empty = true;
    const l = log(range(1, 30));
    const pages = new OlderPages<E>({ read: async (s, n) => (empty ? [] : l.read(s, n)), size: 10, maxPages: 4 });
    await expect(pages.load(0, 30)).rejects.toThrow(/no events after seq 0/);
    expect(pages.held(0)).toBeUndefined();
    empty = false;
    expect((await pages.load(0, 30)).seqs).toEqual(range(1, 10));
  });

  it('does not keep the page where the log ends (more may come), and drops the least recently used', async () => {
    const l = log(range(1, 45));
    const pages = new OlderPages<E>({ read: l.read, size: 10, maxPages: 2 });
    const tail = await pages.load(4, 45);
    expect([tail.seqs, tail.coveredTo, pages.held(4)]).toEqual([range(41, 45), 45, undefined]);
    await pages.load(0, 45);
    await pages.load(1, 45);
    pages.held(0); // used: kept over page 1
    await pages.load(2, 45);
    l.calls.length = 0;
    await pages.load(0, 45);
    await pages.load(2, 45);
    expect(l.calls).toEqual([]);
    await pages.load(1, 45);
    expect(l.calls).toEqual([[10, 10]]);
  });

  it('fails a page whose read never answers (its server died), so the next caller reads it again', async () => {
    const l = log(range(1, 30));
    let hang = true;
    const pages = new OlderPages<E>({
      read: (since, limit) => (hang ? new Promise<never>(() => undefined) : l.read(since, limit)),
      size: 10,
      maxPages: 4,
      readTimeoutMs: 50,
    });
    await expect(pages.load(1, 30)).rejects.toThrow(/did not answer within 50 ms/);
    hang = false;
    expect((await pages.load(1, 30)).seqs).toEqual(range(11, 20));
  });
});
