/**
 * The gateway's event stream under load over real sockets (docs/gateway-api.md#resume): a `since`
 * replay that goes live with no gap and no duplicate while events keep coming (memory and Redis
 * logs), and slow consumers (closed past their backpressure limit; a large replay paced by drain).
 */
import type { Socket } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryEventLog } from '../../adapters/store/event-log/memory.ts';
import type { EventLog, Sequenced } from '../../adapters/store/event-log/port.ts';
import { createRedisEventLog } from '../../adapters/store/event-log/redis.ts';
import { createGatewayShell, type GatewayShell } from '../../server/gateway/shell.ts';
import { sharedTestRedis } from '../support/redis-prefix.ts';
import { collect, type Collector } from '../support/ws-collector.ts';
import { setTimeout as sleep } from 'node:timers/promises';

type TestEvent = { type: 'price'; symbol: 'solusdt'; price: string; ts: number } | { type: 'bet_open'; id: string };

const logger = pino({ level: 'silent' });
const price = (n: number): TestEvent => ({ type: 'price', symbol: 'solusdt', price: `${100 + n}.00000000`, ts: 1_763_700_000_000 + n });

function slowReads<E extends TestEvent>(log: EventLog<E>): EventLog<E> {
  return {
    append: (e) => log.append(e),
    lastSeq: () => log.lastSeq(),
    firstSeq: () => log.firstSeq(),
    epoch: () => log.epoch(),
    readSince: async (since, limit) => {
      await sleep(1);
      return log.readSince(since, limit);
    },
  };
}

const redis = sharedTestRedis();

// a ring of 50 recent events: most resumes below start older than it, so their replay reads old pages of the log
describe.each([
  ['memory log, slow reads', () => slowReads(createMemoryEventLog<TestEvent>()), 20_000],
  ['memory log, slow reads, small ring', () => slowReads(createMemoryEventLog<TestEvent>()), 50],
  ['redis log', () => createRedisEventLog<TestEvent>(redis.redis(), { prefix: redis.prefix() }), 20_000],
  ['redis log, small ring', () => createRedisEventLog<TestEvent>(redis.redis(), { prefix: redis.prefix() }), 50],
])('since replay over a %s', (_name, makeLog, ring) => {
  let replayShell: GatewayShell<TestEvent>;
  let url: string;
  beforeAll(async () => {
    replayShell = createGatewayShell<TestEvent>({ eventLog: makeLog(), logger, stream: { replayPageSize: 7, resumeRingEvents: ring } });
    await replayShell.events.start();
    url = `ws://127.0.0.1:${await replayShell.listen(0, '127.0.0.1')}/api/ws`;
  });
  afterAll(() => replayShell.close());

  it('replays `since` then goes live with no gap and no duplicate while events keep coming', async () => {
    const events = replayShell.events;
    let snapshot: Sequenced<TestEvent> | undefined;
    events.setSnapshotSource(() => snapshot);
    for (let i = 0; i < 120; i++) snapshot = await events.broadcast(price(i));
    const start = events.lastPublishedSeq;
    let producing = true;
    const producer = (async () => {
      let i = 0;
      // bounded well below the log's capacity, so a slow machine cannot push `since=0` out of it
      while (producing && i < 3000) {
        const e = await events.broadcast(i % 3 ? price(i) : { type: 'bet_open', id: String(i) });
        if (e.type === 'price') snapshot = e;
        i++;
        if (i % 4 === 0) await new Promise((r) => setImmediate(r));
      }
    })();
    const sinces = [0, 1, start - 100, start - 30, start - 7, start - 1, start, start + 5];
    const clients: Array<{ since: number; c: Collector }> = [];
    for (const since of sinces) {
      clients.push({ since, c: await collect(`${url}?since=${since}`) });
      await sleep(2);
    }
    await sleep(100);
    producing = false;
    await producer;
    const end = events.lastPublishedSeq;
    expect(end).toBeGreaterThan(start + 20);
    for (const { since, c } of clients) {
      await c.until((m) => m.some((e) => e.seq === end));
      const seqs = c.messages.map((e) => e.seq as number);
      // a snapshot is sent first only when it is not newer than `since`
      const stream = seqs[0] !== undefined && seqs[0] <= since ? seqs.slice(1) : seqs;
      // a since past the last seq means the log restarted: everything held is replayed
      const from = since > end ? 0 : since;
      expect(stream, `since=${since}`).toEqual(Array.from({ length: end - from }, (_, i) => from + 1 + i));
      c.close();
    }
  });
});

describe('slow consumers', () => {
  type Big = { type: 'big'; n: number; pad: string };
  let bigShell: GatewayShell<Big>;
  let url: string;
  beforeAll(async () => {
    bigShell = createGatewayShell<Big>({ eventLog: createMemoryEventLog<Big>(1000), logger, stream: { maxBackpressure: 64 * 1024 } });
    await bigShell.events.start();
    url = `ws://127.0.0.1:${await bigShell.listen(0, '127.0.0.1')}/api/ws`;
  });
  afterAll(() => bigShell.close());

  it('closes a socket that stops reading once its backlog passes maxBackpressure; others get every event', async () => {
    const fast = await collect(url);
    const slow = await collect(url);
    (slow.socket as unknown as { _socket: Socket })._socket.pause();
    expect(bigShell.events.connections).toBe(2);
    const pad = 'x'.repeat(16 * 1024);
    let sent = 0;
    // At most 64 MiB: far beyond kernel buffers plus the 64 KiB bound.
    while (bigShell.events.connections === 2 && sent < 4096) {
      await bigShell.events.broadcast({ type: 'big', n: sent, pad });
      sent++;
      if (sent % 8 === 0) await new Promise((r) => setImmediate(r));
    }
    expect(bigShell.events.connections).toBe(1);
    const last = bigShell.events.lastPublishedSeq;
    await fast.until((m) => m.some((e) => e.seq === last), 30_000);
    expect(fast.messages.map((e) => e.seq)).toEqual(Array.from({ length: last }, (_, i) => i + 1));
    fast.close();
    slow.socket.terminate();
  });

  it('paces a large replay by drain instead of overflowing maxBackpressure', async () => {
    const pad = 'y'.repeat(16 * 1024);
    const from = bigShell.events.lastPublishedSeq;
    for (let n = 0; n < 300; n++) await bigShell.events.broadcast({ type: 'big', n, pad }); // ~4.8 MiB, 75x the bound
    const last = bigShell.events.lastPublishedSeq;
    const c = await collect(`${url}?since=${from}`);
    await c.until((m) => m.some((e) => e.seq === last), 30_000);
    expect(c.messages.map((e) => e.seq)).toEqual(Array.from({ length: 300 }, (_, i) => from + 1 + i));
    c.close();
  });
});
