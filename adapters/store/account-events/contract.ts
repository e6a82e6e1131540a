/** Behaviour every AccountEventLogs adapter must show; run by each adapter's test file. */
import { describe, expect, it } from 'vitest';
import type { AccountEventLogs } from './port.ts';

/** A test event of one account. */
export interface TestAccountEvent {
  type: 'test';
  accountId: string;
  n: number;
}

/** Registers the shared tests; `make(capacity)` returns fresh, empty logs. */
export function describeAccountEventLogs(name: string, make: (capacity?: number) => Promise<AccountEventLogs<TestAccountEvent>>): void {
  describe(`AccountEventLogs contract: ${name}`, () => {
    it('numbers each account on its own, 1, 2, 3 in append order', async () => {
      const logs = await make();
      const [a, b] = [logs.of('a'), logs.of('b')];
      expect((await a.append({ type: 'test', accountId: 'a', n: 1 })).seq).toBe(1);
      expect((await b.append({ type: 'test', accountId: 'b', n: 1 })).seq).toBe(1);
      expect((await a.append({ type: 'test', accountId: 'a', n: 2 })).seq).toBe(2);
      expect((await logs.of('a').readSince(0)).map((e) => [e.seq, e.n])).toEqual([
        [1, 1],
        [2, 2],
      ]);
      expect(await logs.of('b').lastSeq()).toBe(1);
      expect(await logs.of('c').lastSeq()).toBe(0);
    });

    it('appends the batches of several accounts at once, each with consecutive seqs after single appends', async () => {
      const logs = await make();
      await logs.of('batch').append({ type: 'test', accountId: 'batch', n: 0 });
      const ev = (accountId: string, n: number) => ({ type: 'test' as const, accountId, n });
      const [got, none, other] = await logs.appendMany([
        { accountId: 'batch', events: [1, 2, 3].map((n) => ev('batch', n)) },
        { accountId: 'empty', events: [] },
        { accountId: 'other', events: [ev('other', 9)] },
      ]);
      expect(got?.map((e) => [e.seq, e.n])).toEqual([
        [2, 1],
        [3, 2],
        [4, 3],
      ]);
      expect(none).toEqual([]);
      expect(other?.map((e) => [e.seq, e.n])).toEqual([[1, 9]]);
      expect((await logs.of('batch').readSince(1)).map((e) => e.n)).toEqual([1, 2, 3]);
      expect(await logs.appendMany([])).toEqual([]);
      expect(await logs.of('empty').lastSeq()).toBe(0);
      expect(await logs.of('batch').lastSeq()).toBe(4);
    });

    it('keeps at most the capacity per account, with a stable epoch per account', async () => {
      const logs = await make(50);
      const log = logs.of('busy');
      const epoch = await log.epoch();
      for (let n = 1; n <= 200; n++) await log.append({ type: 'test', accountId: 'busy', n });
      expect(await log.firstSeq()).toBeGreaterThan(1);
      expect(await log.lastSeq()).toBe(200);
      expect(await logs.of('busy').epoch()).toBe(epoch);
      expect(await logs.of('other').epoch()).not.toBe(epoch);
    });

    it('enrolls accounts once each, with a version that moves on every new one', async () => {
      const logs = await make();
      const before = await logs.enrolledVersion();
      await logs.enroll('x');
      await logs.enroll('x');
      await logs.enroll('y');
      const now = await logs.enrolled();
      expect(now.accounts.sort()).toEqual(['x', 'y']);
      expect(now.version).toBe(before + 2);
      expect(await logs.enrolledVersion()).toBe(now.version);
      await logs.delete('x');
      expect((await logs.enrolled()).accounts).toEqual(['y']);
    });

    it('drops an account with its history: a later log starts over in a new epoch', async () => {
      const logs = await make();
      const epoch = await logs.of('gone').epoch();
      await logs.of('gone').append({ type: 'test', accountId: 'gone', n: 1 });
      await logs.of('kept').append({ type: 'test', accountId: 'kept', n: 1 });
      await logs.delete('gone');
      expect(await logs.of('gone').lastSeq()).toBe(0);
      expect(await logs.of('gone').readSince(0)).toEqual([]);
      expect(await logs.of('gone').epoch()).not.toBe(epoch);
      expect(await logs.of('kept').lastSeq()).toBe(1);
    });
  });
}
