/**
 * Resumes when the log is slow or away (docs/gateway-api.md#resume, docs/architecture.md#resumes-from-memory),
 * over real sockets: a resume inside the ring of recent events reads nothing from the log; one
 * older than the ring reads each old page once for every socket waiting on it; past `maxResuming`
 * sockets replaying at once a connect with `since` is answered 503 with Retry-After (a plain
 * connect is still served); a socket whose old events cannot be read is closed with 1013 and a
 * jittered retry hint, and coming back with the same `since` gets exactly what it missed; a
 * resume of another epoch is told `recovered: false` and gets everything held. At `maxSockets` the
 * gateway stops listening (a connect is refused at once, never accepted into a process out of
 * descriptors) and listens again on the same port once sockets close.
 */
import WebSocket from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryEventLog } from '../../adapters/store/event-log/memory.ts';
import type { EventLog, Sequenced } from '../../adapters/store/event-log/port.ts';
import { collect } from '../support/ws-collector.ts';
import { price, range, seqsOf, streamShells, type TestEvent } from '../support/stream-shell.ts';
import { setTimeout as sleep } from 'node:timers/promises';

/** A memory log whose reads can be held back or made to fail, counting them. */
function controlledLog() {
  const inner = createMemoryEventLog<TestEvent>(100_000);
  let gate: Promise<void> | null = null;
  let open: () => void = () => undefined;
  const control = {
    reads: 0,
    failing: false,
    hold() {
      gate = new Promise((r) => (open = r));
    },
    release() {
      gate = null;
      open();
    },
  };
  const log: EventLog<TestEvent> = {
    append: (e) => inner.append(e),
    lastSeq: () => inner.lastSeq(),
    firstSeq: () => inner.firstSeq(),
    epoch: () => inner.epoch(),
    readSince: async (since, limit) => {
      control.reads++;
      if (gate) await gate;
      if (control.failing) throw new Error('the log is away');
      return inner.readSince(since, limit);
    },
  };
  return { log, control };
}

describe('resumes under a slow or absent event log', () => {
  const shells = streamShells();
  afterEach(() => shells.close());
  const start = shells.start;

  it('serves a resume inside the ring without reading the log; reads each old page once for a herd on it', async () => {
    const { log, control } = controlledLog();
    const { events, url } = await start(log, { resumeRingEvents: 100, replayPageSize: 50 });
    for (let i = 0; i < 400; i++) await events.broadcast(price(i));
    control.reads = 0;
    const recent = await Promise.all(Array.from({ length: 20 }, () => collect(`${url}?since=350`)));
    for (const c of recent) await c.until((m) => m.some((e) => e.seq === 400));
    expect(control.reads).toBe(0);
    for (const c of recent) {
      expect(seqsOf(c.messages), JSON.stringify(c.resumes)).toEqual(range(351, 400));
      expect(c.resumes[0]).toMatchObject({ type: 'resume', recovered: true, seq: 400 });
      c.close();
    }
    // 40 sockets resuming at 120: pages (100,150], (150,200], (200,250], (250,300] once each, then the ring
    const old = await Promise.all(Array.from({ length: 40 }, () => collect(`${url}?since=120`)));
    for (const c of old) await c.until((m) => m.some((e) => e.seq === 400));
    expect(control.reads).toBeLessThanOrEqual(4);
    for (const c of old) {
      expect(seqsOf(c.messages)).toEqual(range(121, 400));
      c.close();
    }
  });

  it('answers 503 with Retry-After past maxResuming sockets replaying; a plain connect is still served', async () => {
    const { log, control } = controlledLog();
    const { events, url } = await start(log, { resumeRingEvents: 100, replayPageSize: 50, maxResuming: 2 });
    for (let i = 0; i < 300; i++) await events.broadcast(price(i));
    control.hold(); // old pages wait: the first two resuming sockets stay resuming
    const waiting = await Promise.all([collect(`${url}?since=10`), collect(`${url}?since=20`)]);
    expect(events.resuming).toBe(2);
    const refused = await new Promise<{ status: number; retryAfter: string | undefined; body: string }>((resolve, reject) => {
      const ws = new WebSocket(`${url}?since=30`);
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined, body }));
      });
      ws.once('open', () => reject(new Error('upgraded past maxResuming')));
    });
    expect(refused.status).toBe(503);
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(refused.body)).toEqual({ error: expect.stringContaining('resuming') });
    const plain = await collect(url);
    await events.broadcast(price(300));
    await plain.until((m) => m.some((e) => e.seq === 301));
    control.release();
    for (const [i, c] of waiting.entries()) {
      await c.until((m) => m.some((e) => e.seq === 301));
      expect(seqsOf(c.messages)).toEqual(range(i === 0 ? 11 : 21, 301));
      c.close();
    }
    plain.close();
  });

  it('closes with 1013 and a retry hint when old events cannot be read; the same since later gets exactly what was missed', async () => {
    const { log, control } = controlledLog();
    const { events, url } = await start(log, {
      resumeRingEvents: 100,
      replayPageSize: 50,
      resume: { olderReadAttempts: 2, retryAfterMs: 400 },
    });
    for (let i = 0; i < 300; i++) await events.broadcast(price(i));
    control.failing = true;
    const failing = await collect(`${url}?since=40`);
    const closedWith = await new Promise<{ code: number; reason: string }>((resolve) =>
      failing.socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    expect(closedWith.code).toBe(1013);
    const hint = Number(/retry-after-ms=(\d+)/.exec(closedWith.reason)?.[1]);
    expect(hint).toBeGreaterThanOrEqual(200);
    expect(hint).toBeLessThanOrEqual(600);
    expect(failing.messages.every((m) => (m.seq as number) <= 40)).toBe(true);
    control.failing = false;
    const back = await collect(`${url}?since=40`);
    await back.until((m) => m.some((e) => e.seq === 300));
    expect(seqsOf(back.messages)).toEqual(range(41, 300));
    back.close();
  });

  it('tells a resume of another epoch recovered:false and replays everything held', async () => {
    const { log } = controlledLog();
    const { events, url } = await start(log, { resumeRingEvents: 100, replayPageSize: 50 });
    let last: Sequenced<TestEvent> | undefined;
    for (let i = 0; i < 150; i++) last = await events.broadcast(price(i));
    const epoch = await log.epoch();
    const same = await collect(`${url}?since=140&epoch=${epoch}`);
    const other = await collect(`${url}?since=140&epoch=not-${epoch}`);
    await same.until((m) => m.some((e) => e.seq === last?.seq));
    await other.until((m) => m.some((e) => e.seq === last?.seq));
    expect(same.resumes[0]).toMatchObject({ recovered: true, epoch });
    expect(other.resumes[0]).toMatchObject({ recovered: false, epoch });
    expect(seqsOf(same.messages)).toEqual(range(141, 150));
    expect(seqsOf(other.messages)).toEqual(range(1, 150));
    same.close();
    other.close();
  });

  it('stops listening at maxSockets, refusing connects at once, and listens again on the same port once sockets close', async () => {
    const { log } = controlledLog();
    const { events, url } = await start(log, { maxSockets: 40 });
    await events.broadcast(price(0));
    const held = await Promise.all(Array.from({ length: 40 }, () => collect(url)));
    expect(events.connections).toBe(40);
    const refused = await collect(url).then(
      (c) => {
        c.close();
        return 'upgraded';
      },
      (err: Error) => err.message,
    );
    expect(refused).toMatch(/ECONNREFUSED/);
    for (const c of held.slice(0, 10)) c.close();
    // below the limit by its margin (2 for 40): the port is open again
    let again: Awaited<ReturnType<typeof collect>> | undefined;
    for (let i = 0; i < 100 && !again; i++) {
      again = await collect(url).catch(async () => {
        await sleep(50);
        return undefined;
      });
    }
    expect(again).toBeDefined();
    await events.broadcast(price(1));
    await again?.until((m) => m.some((e) => e.seq === 2));
    again?.close();
    for (const c of held.slice(10)) c.close();
  });
});
