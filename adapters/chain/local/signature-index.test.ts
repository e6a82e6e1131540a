import { describe, expect, it } from 'vitest';
import { SignatureIndex, type SignatureEntry } from './signature-index.ts';

const tx = (signature: string, slot: number): SignatureEntry => ({ signature, slot, err: null, blockTime: 1_763_700_000 + slot });
const names = (entries: SignatureEntry[]) => entries.map((e) => e.signature);
const nowhere = () => null;

/** t1..t6 writing "bet" (t4 and t5 in the same slot), t3 also "other". */
function sample(): SignatureIndex {
  const index = new SignatureIndex();
  index.add(['bet', 'relayer'], tx('t1', 10));
  index.add(['bet'], tx('t2', 11));
  index.add(['bet', 'other'], tx('t3', 12));
  index.add(['bet'], tx('t4', 13));
  index.add(['bet'], tx('t5', 13));
  index.add(['bet'], tx('t6', 15));
  return index;
}

describe('SignatureIndex', () => {
  it('pages newest first with limit, before and until exclusive', () => {
    const index = sample();
    expect(names(index.query('bet', { limit: 1000 }, nowhere))).toEqual(['t6', 't5', 't4', 't3', 't2', 't1']);
    expect(names(index.query('bet', { limit: 2 }, nowhere))).toEqual(['t6', 't5']);
    expect(names(index.query('bet', { limit: 2, before: 't5' }, nowhere))).toEqual(['t4', 't3']);
    expect(names(index.query('bet', { limit: 10, until: 't3' }, nowhere))).toEqual(['t6', 't5', 't4']);
    expect(names(index.query('bet', { limit: 10, before: 't5', until: 't2' }, nowhere))).toEqual(['t4', 't3']);
    expect(names(index.query('bet', { limit: 10, before: 't2', until: 't5' }, nowhere))).toEqual([]);
    expect(names(index.query('other', { limit: 10 }, nowhere))).toEqual(['t3']);
    expect(index.query('never', { limit: 10 }, nowhere)).toEqual([]);
  });

  it('places a signature the address never saw by its slot; an unknown before gives nothing, an unknown until no bound', () => {
    const index = sample();
    const slots: Record<string, number> = { foreign13: 13, foreign14: 14 };
    const locate = (sig: string) => (sig in slots ? { slot: slots[sig] as number } : null);
    expect(names(index.query('bet', { limit: 10, before: 'foreign14' }, locate))).toEqual(['t5', 't4', 't3', 't2', 't1']);
    expect(names(index.query('bet', { limit: 10, before: 'foreign13' }, locate))).toEqual(['t3', 't2', 't1']); // its order within slot 13 is unknown
    expect(names(index.query('bet', { limit: 10, until: 'foreign13' }, locate))).toEqual(['t6']);
    expect(index.query('bet', { limit: 10, before: 'unknown' }, locate)).toEqual([]);
    expect(names(index.query('bet', { limit: 2, until: 'unknown' }, locate))).toEqual(['t6', 't5']);
  });

  it('skips what a snapshot already holds while the journal after it is replayed, and nothing once settled', () => {
    const index = new SignatureIndex();
    index.restore('bet', [tx('t1', 10), tx('t3', 12), tx('t4', 13)]); // taken while t3 and t4 landed
    index.restore('other', [tx('t3', 12)]);
    for (const [addresses, entry] of [
      [['bet', 'other'], tx('t3', 12)],
      [['bet', 'fresh'], tx('t4', 13)],
      [['bet'], tx('t5', 13)],
      [['other'], tx('t6', 14)],
    ] as const)
      index.add(addresses, entry);
    index.settle();
    expect(names(index.query('bet', { limit: 10 }, nowhere))).toEqual(['t5', 't4', 't3', 't1']);
    expect(names(index.query('other', { limit: 10 }, nowhere))).toEqual(['t6', 't3']);
    expect(names(index.query('fresh', { limit: 10 }, nowhere))).toEqual(['t4']);
  });

  it('keeps memory bounded: the newest per address, and the least recently written addresses go first', () => {
    const index = new SignatureIndex({ perAddress: 3, addresses: 3, signatures: 6 });
    for (let i = 1; i <= 5; i++) index.add(['busy'], tx(`b${i}`, i));
    expect(names(index.query('busy', { limit: 10 }, nowhere))).toEqual(['b5', 'b4', 'b3']);
    index.add(['a'], tx('a1', 6));
    index.add(['b'], tx('b1', 7));
    index.add(['busy'], tx('b6', 8)); // busy written again: now the most recent
    index.add(['c'], tx('c1', 9)); // a fourth address: 'a' is the least recently written
    expect(index.size).toBe(3);
    expect(index.query('a', { limit: 10 }, nowhere)).toEqual([]);
    expect(names(index.query('busy', { limit: 10 }, nowhere))).toEqual(['b6', 'b5', 'b4']);
    index.add(['c'], tx('c2', 10));
    index.add(['c'], tx('c3', 11)); // 7 entries > 6: 'b', written longest ago, goes
    expect(index.entries).toBe(6);
    expect(index.query('b', { limit: 10 }, nowhere)).toEqual([]);
    expect(names(index.query('c', { limit: 10 }, nowhere))).toEqual(['c3', 'c2', 'c1']);
  });
});
