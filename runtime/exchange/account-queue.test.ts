import { describe, expect, it } from 'vitest';
import { serialPerAccount } from './account-queue.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const tick = () => sleep(1);

describe('serialPerAccount', () => {
  // one at a time per key, failures not blocking: kernel/serial-queue.test.ts
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
