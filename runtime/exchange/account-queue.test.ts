import { describe, expect, it } from 'vitest';
import { serialPerAccount } from './account-queue.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const tick = () => sleep(1);

describe('serialPerAccount', () => {
  it('runs work of one account one at a time, in arrival order, and other accounts alongside', async () => {
    const owner = {};
    const log: string[] = [];
    let running = 0;
    let most = 0;
    const job = (account: string, n: number) =>
      serialPerAccount(owner, account, async () => {
        running++;
        most = Math.max(most, running);
        log.push(`${account}${n}`);
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

  it('a failing work does not block the next one', async () => {
    const owner = {};
    const failed = serialPerAccount(owner, 'a', async () => {
      throw new Error('refused');
    });
    const next = serialPerAccount(owner, 'a', async () => 'ran');
    await expect(failed).rejects.toThrow('refused');
    await expect(next).resolves.toBe('ran');
  });

  it('queues per owner: the same account id of two stores runs alongside', async () => {
    let running = 0;
    let most = 0;
    const job = (owner: object) =>
      serialPerAccount(owner, 'a', async () => {
        running++;
        most = Math.max(most, running);
        await tick();
        running--;
      });
    await Promise.all([job({}), job({})]);
    expect(most).toBe(2);
  });
});
