import { describe, expect, it } from 'vitest';
import { RecentEvents } from './recent-events.ts';

const filled = (capacity: number, seqs: number[]) => {
  const r = new RecentEvents(capacity);
  for (const s of seqs) r.push(s, `e${s}`);
  return r;
};

describe('the ring of recent events', () => {
  it('keeps the newest `capacity` events, oldest first, across wrap-around', () => {
    const r = filled(4, [1, 2, 3, 4, 5, 6]);
    expect(r.size).toBe(4);
    expect([r.first, r.last]).toEqual([3, 6]);
    expect([0, 1, 2, 3].map((p) => [r.seqAt(p), r.textAt(p)])).toEqual([
      [3, 'e3'],
      [4, 'e4'],
      [5, 'e5'],
      [6, 'e6'],
    ]);
  });

  it('finds the event after a seq; says when events after it may no longer be held', () => {
    const r = filled(4, [1, 2, 3, 4, 5, 6]);
    expect(r.positionAfter(2)).toBe(0); // 3 is the oldest held: nothing between is lost
    expect(r.positionAfter(4)).toBe(2);
    expect(r.positionAfter(6)).toBe(4); // nothing newer
    expect(r.positionAfter(9)).toBe(4);
    expect(r.positionAfter(1)).toBe(-1); // seq 2 is gone
    expect(new RecentEvents(3).positionAfter(0)).toBe(-1);
  });

  it('finds positions across skipped seqs by search', () => {
    const r = filled(8, [10, 11, 14, 15, 20]);
    expect(r.positionAfter(11)).toBe(2);
    expect(r.positionAfter(12)).toBe(2);
    expect(r.positionAfter(15)).toBe(4);
    expect(r.positionAfter(19)).toBe(4);
    expect(r.positionAfter(20)).toBe(5);
  });

  it('ignores a seq not above the newest, and starts over when cleared', () => {
    const r = filled(4, [5, 6]);
    r.push(6, 'again');
    r.push(3, 'older');
    expect([r.size, r.textAt(1)]).toEqual([2, 'e6']);
    r.clear();
    expect([r.size, r.first, r.positionAfter(0)]).toEqual([0, undefined, -1]);
    r.push(1, 'e1');
    expect([r.first, r.positionAfter(0)]).toEqual([1, 0]);
  });
});
