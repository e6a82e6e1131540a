import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { LoggedEvent, Sequenced } from '../../../adapters/store/event-log/port.ts';
import { InOrder } from './in-order.ts';
import { setTimeout as sleep } from 'node:timers/promises';

type E = Sequenced<LoggedEvent>;
const ev = (seq: number): E => ({ seq, type: 'price', ts: seq }) as E;
const seqs = (events: E[]) => events.map((e) => e.seq);
const tick = (ms = 20) => sleep(ms);

/** A publisher over a log holding `held` seqs, whose reads are answered by `answer` (default: the held seqs after `since`). */
function setUp(held: number[], answer?: (since: number, limit: number) => Promise<E[]>) {
  const published: E[] = [];
  const reads: number[] = [];
  const warnings: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => warnings.push(JSON.parse(line).msg) });
  const order = new InOrder<LoggedEvent>({
    read: async (since, limit) => {
      reads.push(since);
      return answer
        ? answer(since, limit)
        : held
            .filter((s) => s > since)
            .slice(0, limit)
            .map(ev);
    },
    publish: (e) => published.push(e),
    logger,
    gapFillMs: 5,
    pageSize: 100,
  });
  return { order, published, reads, warnings };
}

describe('InOrder', () => {
  it('publishes out-of-order deliveries once each, in seq order', () => {
    const { order, published } = setUp([]);
    order.deliver([ev(2), ev(3)]);
    expect(published).toEqual([]);
    order.deliver([ev(1), ev(2)]);
    order.deliver([ev(3)]);
    expect(seqs(published)).toEqual([1, 2, 3]);
    order.stop();
  });

  it('reads a late predecessor from the log after the gap timer', async () => {
    const { order, published, reads } = setUp([1, 2, 3, 4]);
    order.deliver([ev(3), ev(4)]);
    await tick();
    expect(reads).toEqual([0]);
    expect(seqs(published)).toEqual([1, 2, 3, 4]);
  });

  it('keeps publishing when the missing events arrive while the read is in flight and the read brings nothing new', async () => {
    let release: (events: E[]) => void = () => undefined;
    const { order, published, warnings } = setUp([], () => new Promise<E[]>((r) => (release = r)));
    order.deliver([ev(2)]);
    await tick(); // the gap read is in flight
    order.deliver([ev(1)]); // the follower caught up meanwhile
    expect(seqs(published)).toEqual([1, 2]);
    release([ev(1), ev(2)]); // the read answers what is already published
    await tick();
    order.deliver([ev(3)]);
    order.deliver([ev(4)]);
    expect(seqs(published)).toEqual([1, 2, 3, 4]);
    expect(warnings).toEqual([]);
    order.stop();
  });

  it('does not skip a hole the read stopped short of: it reads again and publishes it', async () => {
    let calls = 0;
    const { order, published, warnings } = setUp([], async (since) => {
      calls++;
      // the first read is cut before the hole (a fetch that timed out); the next one reaches it
      if (calls === 1) return [];
      return [2, 3, 4].filter((s) => s > since).map(ev);
    });
    order.startOver(2); // published up to 1
    order.deliver([ev(4)]);
    await tick(60);
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(seqs(published)).toEqual([2, 3, 4]);
    expect(warnings).toEqual([]);
  });

  it('skips only seqs the log was read past without holding them', async () => {
    const { order, published, warnings } = setUp([1, 4, 5]);
    order.deliver([ev(5)]);
    await tick();
    expect(seqs(published)).toEqual([1, 4, 5]);
    expect(warnings).toEqual(['events missing from the log are skipped']);
  });

  it('tries again when the log cannot be read', async () => {
    let calls = 0;
    const { order, published, warnings } = setUp([], async () => {
      if (++calls === 1) throw new Error('stream has no leader');
      return [ev(1), ev(2)];
    });
    order.deliver([ev(2)]);
    await tick(60);
    expect(seqs(published)).toEqual([1, 2]);
    expect(warnings).toEqual(['event log unreadable while filling a gap; trying again']);
  });
});
