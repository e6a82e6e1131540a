/** Behaviour every EventLog adapter must show; run by each adapter's test file. */
import { describe, expect, it } from 'vitest';
import type { EventLog } from './port.ts';

/** A test event. */
export interface TestEvent {
  type: 'test';
  n: number;
}

/** Registers the shared EventLog tests; `make(capacity)` returns a fresh, empty log. */
export function describeEventLog(name: string, make: (capacity?: number) => Promise<EventLog<TestEvent>>): void {
  describe(`EventLog contract: ${name}`, () => {
    it('starts at seq 0 and assigns 1, 2, 3 in append order', async () => {
      const log = await make();
      expect(await log.lastSeq()).toBe(0);
      expect(await log.readSince(0)).toEqual([]);
      expect(await log.append({ type: 'test', n: 10 })).toEqual({ type: 'test', n: 10, seq: 1 });
      expect(await log.append({ type: 'test', n: 11 })).toEqual({ type: 'test', n: 11, seq: 2 });
      expect(await log.append({ type: 'test', n: 12 })).toEqual({ type: 'test', n: 12, seq: 3 });
      expect(await log.lastSeq()).toBe(3);
    });

    it('names its history with a stable epoch and reports the oldest seq held', async () => {
      const log = await make(100);
      const epoch = await log.epoch();
      expect(typeof epoch).toBe('string');
      expect(await log.firstSeq()).toBe(1);
      for (let n = 1; n <= 300; n++) await log.append({ type: 'test', n });
      expect(await log.epoch()).toBe(epoch);
      const first = await log.firstSeq();
      expect(first).toBeGreaterThan(1);
      expect((await log.readSince(0, 1))[0]?.seq).toBe(first);
    });

    it('reads strictly after `since`, oldest first, paged by limit', async () => {
      const log = await make();
      for (let n = 1; n <= 7; n++) await log.append({ type: 'test', n });
      expect((await log.readSince(0)).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect((await log.readSince(4)).map((e) => e.n)).toEqual([5, 6, 7]);
      expect((await log.readSince(2, 3)).map((e) => e.seq)).toEqual([3, 4, 5]);
      expect(await log.readSince(7)).toEqual([]);
      expect(await log.readSince(100)).toEqual([]);
    });

    it('assigns unique, gapless seqs to concurrent appends', async () => {
      const log = await make();
      const got = await Promise.all(Array.from({ length: 50 }, (_, n) => log.append({ type: 'test', n })));
      expect(got.map((e) => e.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      const read = await log.readSince(0, 1000);
      expect(read.map((e) => e.seq)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      for (const e of read) expect(got.find((g) => g.seq === e.seq)?.n).toBe(e.n);
    });

    it('is bounded: the oldest events drop out, seqs keep counting', async () => {
      const log = await make(100);
      for (let n = 1; n <= 1000; n++) await log.append({ type: 'test', n });
      const held = await log.readSince(0, 10_000);
      expect(held.length).toBeGreaterThanOrEqual(100);
      expect(held.length).toBeLessThan(1000);
      expect(held[held.length - 1]?.seq).toBe(1000);
      expect(await log.lastSeq()).toBe(1000);
      const seqs = held.map((e) => e.seq);
      expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => 1001 - seqs.length + i));
    });
  });
}
