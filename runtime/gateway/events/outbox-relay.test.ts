import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createMemoryEventLog } from '../../../adapters/store/event-log/memory.ts';
import type { Sequenced } from '../../../adapters/store/event-log/port.ts';
import { OutboxRelay } from './outbox-relay.ts';
import { setTimeout as sleep } from 'node:timers/promises';

type E = { type: 'bet_open' | 'bet_closed'; id: string };
const log = pino({ level: 'silent' });
const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await sleep(10);
};

/** A stream that remembers what was relayed, deduplicating by id like JetStream. */
function fakeStream(startAt = 0) {
  const relayed: Array<{ event: E; outboxSeq: number; dedupId: string }> = [];
  const ids = new Set<string>();
  let failing = false;
  let marked = startAt;
  return {
    relayed,
    async markRelayed(seq: number) {
      marked = seq;
    },
    fail: (on: boolean) => (failing = on),
    async appendFromOutbox(event: E, outboxSeq: number, dedupId: string): Promise<Sequenced<E>> {
      if (failing) throw new Error('NATS down');
      if (!ids.has(dedupId)) relayed.push({ event, outboxSeq, dedupId });
      ids.add(dedupId);
      return { ...event, seq: relayed.length };
    },
    async lastOutboxSeq() {
      return Math.max(relayed.at(-1)?.outboxSeq ?? 0, marked);
    },
  };
}

describe('OutboxRelay', () => {
  it('relays committed events in order, resumes after the last relayed one, and retries through an outage', async () => {
    const outbox = createMemoryEventLog<E>();
    const stream = fakeStream();
    const dedupIdOf = (e: Sequenced<E>) => `bet:${e.id}:${e.type}`;
    for (const id of ['1', '2']) await outbox.append({ type: 'bet_open', id });
    const relay = new OutboxRelay<E>({ outbox, stream, dedupIdOf, log, pollMs: 20 });
    await relay.start();
    await until(() => stream.relayed.length === 2);
    stream.fail(true);
    await outbox.append({ type: 'bet_closed', id: '1' });
    relay.kick();
    await sleep(50);
    expect(stream.relayed).toHaveLength(2);
    stream.fail(false);
    await until(() => stream.relayed.length === 3);
    await relay.stop();

    // a new leader resumes after the last relayed event; nothing is relayed twice
    await outbox.append({ type: 'bet_closed', id: '2' });
    const next = new OutboxRelay<E>({ outbox, stream, dedupIdOf, log, pollMs: 20 });
    await next.start();
    await until(() => stream.relayed.length === 4);
    await next.stop();
    expect(stream.relayed.map((r) => [r.outboxSeq, r.dedupId])).toEqual([
      [1, 'bet:1:bet_open'],
      [2, 'bet:2:bet_open'],
      [3, 'bet:1:bet_closed'],
      [4, 'bet:2:bet_closed'],
    ]);
  });

  it('relays the commits made while it stops', async () => {
    const outbox = createMemoryEventLog<E>();
    const stream = fakeStream();
    const relay = new OutboxRelay<E>({ outbox, stream, dedupIdOf: (e) => `bet:${e.id}:${e.type}`, log, pollMs: 10_000 });
    await relay.start();
    await outbox.append({ type: 'bet_closed', id: '9' });
    await relay.stop();
    expect(stream.relayed.map((r) => r.dedupId)).toEqual(['bet:9:bet_closed']);
  });

  it('reports its lag and backlog: both grow while the stream refuses, and fall back once it takes the events', async () => {
    const outbox = createMemoryEventLog<E>();
    const stream = fakeStream();
    const relay = new OutboxRelay<E>({ outbox, stream, dedupIdOf: (e) => `bet:${e.id}:${e.type}`, log, pollMs: 10 });
    expect(relay.lagSeconds()).toBe(0); // not relaying: a follower
    expect(await relay.backlog()).toBe(0);
    await relay.start();
    await outbox.append({ type: 'bet_open', id: '1' });
    relay.kick();
    await until(() => stream.relayed.length === 1);
    stream.fail(true);
    for (const id of ['2', '3']) await outbox.append({ type: 'bet_open', id });
    relay.kick();
    await sleep(300);
    expect(relay.lagSeconds()).toBeGreaterThanOrEqual(0.25);
    expect(await relay.backlog()).toBe(2);
    stream.fail(false);
    await until(() => stream.relayed.length === 3);
    await until(() => relay.lagSeconds() < 0.25);
    expect(relay.lagSeconds()).toBeLessThan(0.25);
    expect(await relay.backlog()).toBe(0);
    await relay.stop();
    expect(relay.lagSeconds()).toBe(0);
  });
});
