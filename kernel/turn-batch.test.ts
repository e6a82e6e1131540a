import { describe, expect, it } from 'vitest';
import { TurnBatch } from './turn-batch.ts';

describe('TurnBatch', () => {
  it('flushes the items of one turn together, each caller getting its own result; a later turn is a new batch', async () => {
    const flushed: number[][] = [];
    const batch = new TurnBatch(async (xs: number[]) => {
      flushed.push(xs);
      return xs.map((x) => x * 10);
    }, 3);
    const first = await Promise.all([1, 2, 3, 4].map((x) => batch.add(x)));
    expect(first).toEqual([10, 20, 30, 40]);
    expect(await batch.add(5)).toBe(50);
    expect(flushed).toEqual([[1, 2, 3], [4], [5]]);
  });

  it('a failed flush fails every item of its batch, and the next turn flushes again', async () => {
    let fail = true;
    const batch = new TurnBatch(async (xs: string[]) => {
      if (fail) throw new Error('store down');
      return xs.map((x) => x.toUpperCase());
    });
    const results = await Promise.allSettled([batch.add('a'), batch.add('b')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    expect(await batch.add('c')).toBe('C');
  });
});
