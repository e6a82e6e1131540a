import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { SerialQueue } from './serial-queue.ts';

const tick = () => sleep(1);

describe('SerialQueue', () => {
  it('runs the work of one key one at a time, in arrival order, and other keys alongside', async () => {
    const queue = new SerialQueue();
    const log: string[] = [];
    let running = 0;
    let most = 0;
    const job = (key: string, n: number) =>
      queue.run(key, async () => {
        running++;
        most = Math.max(most, running);
        log.push(`${key}${n}`);
        await tick();
        running--;
        return n;
      });
    const results = await Promise.all([job('a', 1), job('a', 2), job('a', 3)]);
    expect(results).toEqual([1, 2, 3]);
    expect(log).toEqual(['a1', 'a2', 'a3']);
    expect(most).toBe(1);
    most = 0;
    await Promise.all([job('a', 4), job('b', 1)]);
    expect(most).toBe(2);
  });

  it('a failing work, also one that throws before its first await, does not block the next one', async () => {
    const queue = new SerialQueue();
    const failed = queue.run('a', async () => {
      throw new Error('refused');
    });
    const thrown = queue.run('a', () => {
      throw new Error('at once');
    });
    const next = queue.run('a', async () => 'ran');
    await expect(failed).rejects.toThrow('refused');
    await expect(thrown).rejects.toThrow('at once');
    await expect(next).resolves.toBe('ran');
  });

  it('a key whose last work settled leaves no entry behind', async () => {
    const queue = new SerialQueue();
    await Promise.all([queue.run('a', tick), queue.run('a', tick), queue.run('b', tick)]);
    await tick();
    expect(queue.size).toBe(0);
  });
});
