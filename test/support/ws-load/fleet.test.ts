/**
 * The load fleet against a real bare uWS event stream (`events-server.ts`, its own process) over
 * real loopback sockets from two source addresses: every socket held, every event counted once,
 * latency measured, server closes with a retry hint retried, a duplicate and a gap seen, and after
 * the server is killed and started again every client resumed with the `since` it held (the server
 * echoes it), then told `recovered: false` by a server of another epoch.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../eventually.ts';
import { freePort } from '../servers.ts';
import { startEventsServer, type EventsServer } from './events-server-handle.ts';
import { startFleet, type Fleet, type FleetStats } from './fleet.ts';

const SOCKETS = 2_000;
const WAIT_MS = 30_000;

describe('ws-load fleet', () => {
  let server: EventsServer;
  let fleet: Fleet;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    [server, fleet] = await Promise.all([startEventsServer(port), startFleet({ workers: 2, sourceAddresses: ['127.0.0.2', '127.0.0.3'] })]);
  });

  afterAll(async () => {
    await fleet?.stop();
    await server?.kill();
  });

  /** Stats once `ok` holds for them. */
  const statsWhen = (what: string, ok: (s: FleetStats) => boolean) =>
    eventually(
      what,
      async () => {
        const s = await fleet.stats();
        return ok(s) ? s : null;
      },
      WAIT_MS,
      100,
    );

  /** Publishes until `count` more events are out, then stops; answers the last seq. */
  async function publish(count: number): Promise<number> {
    const from = (await server.command({ cmd: 'state' })).seq;
    await server.command({ cmd: 'publish', everyMs: 50 });
    await eventually('events published', async () => ((await server.command({ cmd: 'state' })).seq >= from + count ? true : null), WAIT_MS, 50);
    return (await server.command({ cmd: 'publish', everyMs: 0 })).seq;
  }

  it('holds every socket and gets every event once, with its latency', async () => {
    // retries allowed for the whole file: the closes below are retried by the clients themselves
    const connected = await fleet.connect({ url: server.url, sockets: SOCKETS, deadlineMs: 90_000, retry: true });
    expect(connected).toMatchObject({ clients: SOCKETS, ready: SOCKETS });
    expect((await server.command({ cmd: 'state' })).sockets).toBe(SOCKETS);

    await fleet.resetWindow();
    const before = (await server.command({ cmd: 'state' })).seq;
    const last = await publish(20);
    const published = last - before;
    const s = await statsWhen('every event delivered', (x) => x.messages.total >= SOCKETS * published);
    expect(s.messages).toEqual({ total: SOCKETS * published, byType: { price: SOCKETS * published } });
    expect(s).toMatchObject({ clients: SOCKETS, socketsOpen: SOCKETS, connects: { attempts: SOCKETS, ok: SOCKETS, failed: {} }, retries: 0 });
    expect(s.sequence).toMatchObject({ duplicates: 0, gaps: 0 });
    expect(s.window.latency.count).toBe(SOCKETS * published);
    expect(s.window.latency.p99).not.toBeNull();
    expect(s.window.connectTime.count).toBe(0); // the window began after the connects
    expect(s.cpu).toHaveLength(2);
    expect(s.cpuMsTotal).toBeGreaterThan(0);
  });

  it('retries sockets the server closes with 1013 and a hint, with since', async () => {
    const last = (await server.command({ cmd: 'state' })).seq;
    await server.command({ cmd: 'close', count: 200, code: 1013, reason: 'try again later; retry-after-ms=200' });
    const s = await statsWhen('the closed sockets back', (x) => x.retries >= 200 && x.socketsOpen === SOCKETS);
    expect(s.closes['1013']).toEqual({ count: 200, reasons: Array(3).fill('try again later; retry-after-ms=200') });
    expect(s.retries).toBe(200);
    expect(s.resumes).toMatchObject({ total: 200, recovered: 200, notRecovered: 0, clientsResumed: 200, since: { min: last, max: last } });
    expect(s.sequence).toMatchObject({ duplicates: 0, gaps: 0 });
    expect((await server.command({ cmd: 'state' })).sockets).toBe(SOCKETS);
  });

  it('counts a duplicate and a gap on the one client that had them', async () => {
    await server.command({ cmd: 'duplicate' });
    await server.command({ cmd: 'gap' });
    const s = await statsWhen('the duplicate and the gap', (x) => x.sequence.duplicates > 0 && x.sequence.gaps > 0);
    expect(s.sequence).toMatchObject({ duplicates: 1, gaps: 1, missing: 1, snapshots: 0, clientsWithDuplicates: 1, clientsWithGaps: 1 });
  });

  it('resumes every client with its since after the server is killed and started again', async () => {
    const last = (await server.command({ cmd: 'state' })).seq;
    await statsWhen('every client at the last seq', (x) => x.sequence.last?.min === last);
    await server.kill();
    await statsWhen('every socket dropped', (x) => x.socketsOpen === 0);
    server = await startEventsServer(port, { epoch: 'e1', seq: last });

    await fleet.resetWindow();
    const resumed = await fleet.reconnectAll({ resume: true, deadlineMs: WAIT_MS });
    expect(resumed).toMatchObject({ clients: SOCKETS, ready: SOCKETS });
    const s = await fleet.stats();
    // the server echoes the since it got as the resume message's seq
    expect(s.resumes).toMatchObject({ clientsResumed: SOCKETS, notRecovered: 0, since: { min: last, max: last }, seq: { min: last, max: last } });
    expect(s.window.resumeTime.count).toBeGreaterThanOrEqual(SOCKETS);
    expect(s.closes['1006']?.count).toBe(SOCKETS); // killed: no close frames

    const before = s.messages.byType.price ?? 0;
    const after = await publish(5);
    const t = await statsWhen('events after the resume', (x) => (x.messages.byType.price ?? 0) >= before + SOCKETS * (after - last));
    expect(t.messages.byType.price).toBe(before + SOCKETS * (after - last));
    expect(t.sequence).toMatchObject({ duplicates: 1, gaps: 1 });
  });

  it('is told recovered: false by a server of another epoch, and takes what follows as a new start', async () => {
    const last = (await server.command({ cmd: 'state' })).seq;
    const before = await fleet.stats();
    await server.kill();
    server = await startEventsServer(port, { epoch: 'e2', seq: last + 1000 });
    const resumed = await fleet.reconnectAll({ resume: true, deadlineMs: WAIT_MS });
    expect(resumed.ready).toBe(SOCKETS);
    const after = await publish(3);
    const s = await statsWhen('events after the lost resume', (x) => x.sequence.last?.min === after);
    // once each: on reconnectAll, or before it when the client's own retry reached the new server first
    // (then reconnectAll resumes it from the new history: since = the lost resume's seq, recovered)
    expect(s.resumes.notRecovered - before.resumes.notRecovered).toBe(SOCKETS);
    expect(s.resumes.since?.min).toBeGreaterThanOrEqual(last);
    expect(s.resumes.since?.max).toBeLessThanOrEqual(last + 1000);
    expect(s.messages.byType.price).toBe((before.messages.byType.price ?? 0) + SOCKETS * (after - last - 1000));
    expect(s.sequence).toMatchObject({ duplicates: 1, gaps: 1 }); // a jump of 1000 after recovered: false is no gap
  });
});
