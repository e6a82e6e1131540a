/**
 * A resume that cannot go straight through (docs/gateway-api.md#resume), over real sockets:
 *
 * - a replay cut half way by a log that stops answering is closed with 1013 and a reason naming
 *   the seq to come back from (`since=<n>`, the last one the socket was sent): a client that does
 *   as told gets the rest, each event once;
 * - on a log shared by several gateways, a client whose `since` is above what this gateway has
 *   published yet (it comes from a gateway whose follower is further on) is told `recovered:true`
 *   and waits for what it has not seen: nothing it already has is replayed; past `aheadWaitMs` it
 *   is closed with 1013 and the same `since`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryEventLog } from '../../adapters/store/event-log/memory.ts';
import type { EventLog, Sequenced } from '../../adapters/store/event-log/port.ts';
import { collect } from '../support/ws-collector.ts';
import { price, range, seqsOf, streamShells, type TestEvent } from '../support/stream-shell.ts';
import { setTimeout as sleep } from 'node:timers/promises';

/** A memory log that answers `readsLeft` reads and then fails; `shared` as a JetStream stream is. */
function cuttableLog(shared: boolean) {
  const inner = createMemoryEventLog<TestEvent>(100_000);
  const control = { readsLeft: Number.POSITIVE_INFINITY };
  const log: EventLog<TestEvent> = {
    shared,
    append: (e) => inner.append(e),
    lastSeq: () => inner.lastSeq(),
    firstSeq: () => inner.firstSeq(),
    epoch: () => inner.epoch(),
    readSince: async (since, limit) => {
      if (control.readsLeft <= 0) throw new Error('the log is away');
      control.readsLeft--;
      return inner.readSince(since, limit);
    },
  };
  return { log, inner, control };
}

describe('resumes cut short or ahead of the gateway', () => {
  const shells = streamShells();
  afterEach(() => shells.close());
  const start = shells.start;

  it('closes a replay cut half way with the seq to come back from, and the client that does so gets the rest once', async () => {
    const { log, control } = cuttableLog(false);
    const { events, url } = await start(log, {
      resumeRingEvents: 100,
      replayPageSize: 50,
      resume: { olderReadAttempts: 2, retryAfterMs: 200 },
    });
    for (let i = 0; i < 300; i++) await events.broadcast(price(i));
    // two pages of old events answer, then the log goes away
    control.readsLeft = 2;
    const cut = await collect(`${url}?since=40`);
    const closed = await new Promise<{ code: number; reason: string }>((resolve) =>
      cut.socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    const got = seqsOf(cut.messages);
    expect(closed.code).toBe(1013);
    expect(got, 'part of the replay came before the cut').toEqual(range(41, got.at(-1)!));
    expect(got.length).toBeGreaterThan(0);
    const hinted = /since=(\d+)/.exec(closed.reason);
    expect(hinted?.[1], `the reason names the seq to resume from: "${closed.reason}"`).toBe(String(got.at(-1)));
    control.readsLeft = Number.POSITIVE_INFINITY;
    const back = await collect(`${url}?since=${hinted![1]}`);
    await back.until((m) => m.some((e) => e.seq === 300));
    expect([...got, ...seqsOf(back.messages)], 'every seq after 40, once').toEqual(range(41, 300));
    back.close();
  });

  it('on a shared log, makes a client ahead of this gateway wait for what it has not seen instead of replaying what it has', async () => {
    const { log, inner } = cuttableLog(true);
    const { events, url } = await start(log, { resumeRingEvents: 100, replayPageSize: 50 });
    const appended: Array<Sequenced<TestEvent>> = [];
    for (let i = 0; i < 60; i++) appended.push(await inner.append(price(i)));
    // this gateway's follower has handed on 50; the client saw 55 through another gateway
    events.deliver(appended.slice(0, 50));
    await sleep(50);
    const client = await collect(`${url}?since=55&epoch=${await log.epoch()}`);
    await sleep(100);
    expect(client.resumes[0]).toMatchObject({ type: 'resume', recovered: true });
    expect(
      seqsOf(client.messages).filter((s) => s <= 55),
      'nothing the client has',
    ).toEqual([]);
    events.deliver(appended.slice(50));
    await client.until((m) => m.some((e) => e.seq === 60));
    for (let i = 60; i < 65; i++) await events.broadcast(price(i));
    await client.until((m) => m.some((e) => e.seq === 65));
    expect(seqsOf(client.messages).filter((s) => s > 55)).toEqual(range(56, 65));
    expect(
      seqsOf(client.messages).filter((s) => s <= 55),
      'nothing the client has',
    ).toEqual([]);
    client.close();
  });

  it('closes a client ahead of this gateway for longer than aheadWaitMs with a retry hint and the same since', async () => {
    const { log, inner } = cuttableLog(true);
    const { events, url } = await start(log, { resume: { aheadWaitMs: 300, retryAfterMs: 200 } });
    const appended: Array<Sequenced<TestEvent>> = [];
    for (let i = 0; i < 20; i++) appended.push(await inner.append(price(i)));
    events.deliver(appended.slice(0, 10));
    const client = await collect(`${url}?since=15`);
    const closed = await new Promise<{ code: number; reason: string }>((resolve) =>
      client.socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    expect(closed.code).toBe(1013);
    expect(closed.reason).toMatch(/retry-after-ms=\d+; since=15$/);
    expect(client.messages).toEqual([]);
  });
});
