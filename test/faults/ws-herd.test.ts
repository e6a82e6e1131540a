/**
 * A reconnect herd after a crash (docs/operations.md#a-reconnect-herd, docs/gateway-api.md#resume),
 * with real processes at a size CI affords (the full sizes are `npm run bench -- herd`): a gateway
 * (Profile A, the embedded chain, file stores, its JetStream event stream on a private NATS, ticks
 * at 10 a second) holds HERD sockets of the load fleet, is SIGKILLed and started again on the same
 * port and data, and every client reconnects in the same instant with its `since` and `epoch`.
 *
 * What must hold: every client resumed, `recovered: true`; no socket closed by the gateway; no
 * event lost or doubled on any client; live ticks reach every client afterwards; the herd puts no
 * consumer per socket on the stream and no slow-consumer cut on the gateway's NATS connection;
 * `GET /api/state` answers 200 throughout. (How fast is the benchmark's business, not this test's.)
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { broadcastGateway, startTicker, streamConsumers, type Ticker } from '../support/broadcast-world.ts';
import { request, sleep } from '../support/client-request.ts';
import { managedNats, type Managed } from '../support/managed.ts';
import { startFleet, type Fleet, type FleetStats } from '../support/ws-load/fleet.ts';
import { tempDir } from '../support/temp-dir.ts';

const HERD = 3_000;

describe('a herd of reconnects after the gateway is killed', () => {
  let nats: Managed & { url: string };
  let ticker: Ticker;
  let gateway: Managed & { url: string; base: string };
  let fleet: Fleet;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = tempDir('ws-herd-');
    nats = await managedNats();
    ticker = await startTicker(nats.url, 10);
    gateway = await broadcastGateway({ natsUrl: nats.url, dataDir });
    await gateway.start();
    fleet = await startFleet({ workers: 2 });
  }, 180_000);
  afterAll(async () => {
    await fleet?.stop();
    await gateway?.terminate();
    await ticker?.stop();
    await nats?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('resumes every client exactly where it was, closes none, and keeps ticks and reads flowing', async () => {
    const connected = await fleet.connect({ url: gateway.url, sockets: HERD, rampPerSecond: 2_000, deadlineMs: 60_000, retry: true });
    expect(connected.ready).toBe(HERD);
    // every client has seen live ticks before the crash
    await expectEventually(
      async () => (await fleet.stats()).messages.byType.price ?? 0,
      (n) => n >= HERD * 10,
    );

    await gateway.kill();
    await gateway.start();
    const before = await fleet.stats();

    let consumersPeak = 0;
    const states: number[] = [];
    let herding = true;
    const watch = (async () => {
      while (herding) {
        consumersPeak = Math.max(consumersPeak, await streamConsumers(nats.url, 'GW_EVENTS').catch(() => 0));
        states.push((await request(gateway.base, 'GET', '/api/state', undefined, 10_000)).status);
        await sleep(100);
      }
    })();
    const resumed = await fleet.reconnectAll({ resume: true, deadlineMs: 90_000 });
    await fleet.resetWindow();
    // live again: every client gets ticks published after the herd
    await expectEventually(
      async () => (await fleet.stats()).window.messages,
      (n) => n >= HERD * 10,
    );
    herding = false;
    await watch;
    const after = await fleet.stats();

    const detail = JSON.stringify({ resumed, closes: after.closes, sequence: after.sequence, resumes: after.resumes, consumersPeak });
    expect(resumed.ready, detail).toBe(HERD);
    expect(after.resumes.clientsResumed, detail).toBe(HERD);
    expect(after.resumes.notRecovered, detail).toBe(0);
    // the crash ended every socket without a close frame (1006); the gateway closed none afterwards
    expect(closedSince(before, after), detail).toEqual({});
    expect(after.sequence.duplicates, detail).toBe(0);
    expect(after.sequence.clientsWithGaps, detail).toBe(0);
    // the stream's own follower and a few short reads, never one consumer per resuming socket
    expect(consumersPeak, detail).toBeLessThanOrEqual(5);
    expect(states.length).toBeGreaterThan(0);
    expect(
      states.every((s) => s === 200),
      JSON.stringify(states),
    ).toBe(true);
    const log = gateway.output();
    expect(log).not.toMatch(/slow ?consumer/i);
    expect(log).not.toMatch(/replay failed/);
  }, 300_000);
});

/** Close codes counted after `before`, by code. */
function closedSince(before: FleetStats, after: FleetStats): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [code, c] of Object.entries(after.closes)) {
    const n = c.count - (before.closes[code]?.count ?? 0);
    if (n > 0) out[code] = n;
  }
  return out;
}

/** Polls `read` until `holds` (a hang guard of 60 s, not a speed check). */
async function expectEventually(read: () => Promise<number>, holds: (n: number) => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  let n = await read();
  while (!holds(n)) {
    if (Date.now() > deadline) throw new Error(`not reached within 60 s: ${n}`);
    await sleep(250);
    n = await read();
  }
}
