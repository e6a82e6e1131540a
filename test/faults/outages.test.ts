/**
 * Dependency outages while bets expire (a dependency outage is a 503 with Retry-After within a
 * bounded deadline, never a 500 or a hang; actors that fail are restarted, never left stopped:
 * docs/operations.md#recover): the chain process, Redis and NATS are each SIGKILLed for a few
 * seconds while ten wallets keep betting with a 3 s window. During each outage requests get their
 * answer quickly, with Retry-After and an error naming what is down, and health reports it. After
 * each recovery, with no gateway restart, every bet on chain settles, on a tick no older than
 * docs/decisions.md#entry-and-exit-prices allows, and the event log holds exactly one `bet_closed`
 * per bet.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { FaultWorld, request, sleep } from '../support/fault-world.ts';
import { collect } from '../support/ws-collector.ts';

interface Probe {
  route: string;
  status: number;
  ms: number;
  retryAfter: string | null;
  error: string;
}

/** Requests made every 250 ms while `during` runs. */
/**
 * Waits until an open bet expires between 0.5 s and 3 s from now, so that the outage started next
 * (4.5 s long) has a bet expire inside it, whatever the phase of the bettors' rounds.
 */
async function untilBetExpiresSoon(w: FaultWorld): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const now = Date.now();
    const soon = (await w.betsOnChain()).some((b) => b.status === 0 && Number(b.expireTime) * 1000 > now + 500 && Number(b.expireTime) * 1000 < now + 3_000);
    if (soon) return;
    if (now > deadline) throw new Error('no bet about to expire within 20 s: are the bettors betting?');
    await sleep(100);
  }
}

async function probeWhile(w: FaultWorld, during: () => Promise<void>): Promise<Probe[]> {
  const probes: Probe[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const wallet = w.wallets[probes.length % w.wallets.length] as string;
      const calls = [
        ['GET /api/state', request(w.base, 'GET', '/api/state', undefined, 10_000)],
        ['POST /api/bet', request(w.base, 'POST', '/api/bet', { address: wallet, side: 'UP', amountUnits: '100000000' }, 10_000)],
        ['GET /health', request(w.base, 'GET', '/health', undefined, 10_000)],
        ['GET /ready', request(w.base, 'GET', '/ready', undefined, 10_000)],
      ] as const;
      for (const [route, p] of calls) {
        const r = await p;
        if (r.status === 200 && route === 'POST /api/bet') w.placed.add(r.body.id);
        probes.push({
          route,
          status: r.status,
          ms: r.ms,
          retryAfter: r.headers?.get('retry-after') ?? null,
          error: typeof r.body?.error === 'string' ? r.body.error : JSON.stringify(r.body),
        });
      }
      await sleep(250);
    }
  })();
  await during();
  running = false;
  await loop;
  return probes;
}

describe('chain, Redis and NATS each down for seconds while bets expire', () => {
  let world: FaultWorld | undefined;
  afterAll(() => world?.stopKeepingLog());

  it('answers quickly with the outage named, reports it in health, and settles every bet after recovery without a restart', async () => {
    world = await FaultWorld.start({ redis: true, wallets: 10 });
    const w = world;
    const gatewayPid = w.gateway.pid;
    const outages: Record<string, Probe[]> = {};
    const windows: Record<string, [number, number]> = {};

    for (const [name, server] of [
      ['chain', w.chain],
      ['redis', w.redis!],
      ['nats', w.nats],
    ] as const) {
      w.startBettors();
      await sleep(2_500);
      await untilBetExpiresSoon(w);
      outages[name] = await probeWhile(w, async () => {
        await server.kill();
        const down = Date.now();
        await sleep(4_500);
        await server.start();
        windows[name] = [down, Date.now()];
      });
      await sleep(1_000);
      await w.stopBettors();
      // after the recovery: everything placed so far settles, without touching the gateway
      const bets = await w.settledOnChain(45_000);
      expect(
        bets.filter((b) => b.status === 0).map((b) => `${b.id} (expired ${b.expireTime})`),
        `open bets after the ${name} outage`,
      ).toEqual([]);
      const [from, to] = windows[name]!;
      expect(
        bets.some((b) => Number(b.expireTime) * 1000 > from && Number(b.expireTime) * 1000 < to),
        `a bet expired while ${name} was down`,
      ).toBe(true);
    }
    expect(w.gateway.pid).toBe(gatewayPid);

    const bets = await w.settledOnChain(45_000);
    expect(bets.filter((b) => b.status === 0)).toEqual([]);
    for (const id of w.placed)
      expect(
        bets.some((b) => b.id.toString() === id),
        `bet ${id} answered 200 but is not on chain`,
      ).toBe(true);
    for (const b of bets) expect(w.exitTickOf(b), `exit price of bet ${b.id} is not a tick of the 30 s before its expiry`).toBeDefined();

    // during each outage: an answer within the deadline (2 s, plus slack for this shared machine), never a hang
    for (const [name, probes] of Object.entries(outages)) {
      for (const p of probes) expect(p.ms, `${p.route} during the ${name} outage took ${p.ms} ms (${p.status})`).toBeLessThan(4_000);
      expect(
        probes.filter((p) => p.status === 0),
        `dropped requests during the ${name} outage`,
      ).toEqual([]);
    }
    const failed = (name: string, route: string) => outages[name]!.filter((p) => p.route === route && p.status !== 200);
    // chain down: POST /bet 500 (docs/gateway-api.md#errors), reads 503, both naming the chain with Retry-After.
    // A wallet whose last bet expired during the outage still has it open on chain until the
    // settler catches up after the restart: its 409 is the truth, not an outage answer.
    const chainBets = failed('chain', 'POST /api/bet');
    const outageBets = chainBets.filter((p) => p.status !== 409);
    expect(outageBets.length).toBeGreaterThan(0);
    for (const p of outageBets) expect(p).toMatchObject({ status: 500, retryAfter: '2', error: expect.stringMatching(/chain/) });
    for (const p of chainBets.filter((p) => p.status === 409)) expect(p.error).toMatch(/open bet/);
    for (const p of failed('chain', 'GET /api/state')) expect(p).toMatchObject({ status: 503, retryAfter: '2', error: expect.stringMatching(/chain/) });
    expect(failed('chain', 'GET /health').length).toBeGreaterThan(0);
    expect(failed('chain', 'GET /ready').length).toBeGreaterThan(0);
    // Redis down: bets 503 naming Redis (nothing was placed without its snapshot store)
    expect(failed('redis', 'POST /api/bet').length).toBeGreaterThan(0);
    for (const p of failed('redis', 'POST /api/bet')) expect(p).toMatchObject({ status: 503, retryAfter: '2', error: expect.stringMatching(/redis/i) });
    expect(failed('redis', 'GET /health').every((p) => p.status === 503)).toBe(true);
    expect(failed('redis', 'GET /health').length).toBeGreaterThan(0);
    // NATS down for seconds: the last price is still fresh (under 30 s), so bets go on being taken
    expect(outages.nats!.filter((p) => p.route === 'POST /api/bet' && p.status >= 500)).toEqual([]);

    // the log: one bet_closed per bet, with the chain's outcome
    await sleep(1_000);
    const replay = await collect(`${w.base.replace('http', 'ws')}/api/ws?since=0`);
    await replay.until((m) => bets.every((b) => m.some((e) => e.type === 'bet_closed' && e.id === b.id.toString())), 20_000);
    await sleep(500);
    replay.close();
    for (const b of bets) {
      const closed = replay.messages.filter((e) => e.type === 'bet_closed' && e.id === b.id.toString());
      expect(closed, `bet_closed of ${b.id}`).toHaveLength(1);
      expect(closed[0]).toMatchObject({ status: b.status, exitPrice: Number(b.exitPrice) });
    }
  }, 300_000);
});
