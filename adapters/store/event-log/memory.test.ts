import { expect, it } from 'vitest';
import { createMemoryEventLog } from './memory.ts';
import { describeEventLog, type TestEvent } from './contract.ts';

describeEventLog('memory', async (capacity) => createMemoryEventLog<TestEvent>(capacity));

it('holds exactly `capacity` events', async () => {
  const log = createMemoryEventLog<TestEvent>(3);
  for (let n = 1; n <= 5; n++) await log.append({ type: 'test', n });
  expect((await log.readSince(0)).map((e) => e.n)).toEqual([3, 4, 5]);
});
