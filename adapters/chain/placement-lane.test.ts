import { describe, expect, it } from 'vitest';
import { PlacementLane } from './placement-lane.ts';

describe('PlacementLane', () => {
  it('hands out consecutive ids one placement at a time, reading the chain only when it does not know', async () => {
    const lane = new PlacementLane();
    let reads = 0;
    let running = 0;
    let maxRunning = 0;
    const read = async () => {
      reads++;
      return 40n;
    };
    const place = (ms: number) =>
      lane.run(read, async (id) => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        await new Promise((r) => setTimeout(r, ms));
        running--;
        return { result: id, used: 1 };
      });
    expect(await Promise.all([place(10), place(1), place(5)])).toEqual([40n, 41n, 42n]);
    expect(maxRunning).toBe(1);
    expect(reads).toBe(1);
  });

  it('forgets the id after a failure, so the next placement reads it again', async () => {
    const lane = new PlacementLane();
    let chainNext = 7n;
    const read = async () => chainNext;
    await expect(lane.run(read, async () => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    chainNext = 9n;
    expect(await lane.run(read, async (id) => ({ result: id, used: 1 }))).toBe(9n);
    lane.forget();
    chainNext = 12n;
    expect(await lane.run(read, async (id) => ({ result: id, used: 1 }))).toBe(12n);
  });
});
