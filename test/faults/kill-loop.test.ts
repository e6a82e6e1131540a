/**
 * SIGKILL loops of the gateway with bets in flight (nothing is lost on a crash, in any mode:
 * docs/operations.md#recover; a bet's history record is part of its commit:
 * docs/decisions.md#history-in-the-commit): 30 wallets bet continuously, the gateway is killed
 * (0.4 s after a bet was answered, or right after a bet_closed reached a client) and restarted
 * again and again, and afterwards every bet the chain held is settled exactly once, the event log
 * holds exactly one `bet_open` and one `bet_closed` per bet, every exit price is a tick at most
 * 30 s older than the expiry it priced, a client that resumed with `?since=` after every kill saw
 * each event once, in seq order, and the bet history (`GET /api/bets/:id`) holds every bet with the
 * chain's final status, exit price and close transaction. Run with the stores in Redis and reclaims
 * on (reclaimed bets are known from every write the chain announced), and with the embedded files
 * in DATA_DIR and reclaims off.
 */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { BetAccountWatch } from '../support/chain-bets.ts';
import { eventually } from '../support/eventually.ts';
import { FaultWorld, sleep } from '../support/fault-world.ts';
import { logLines } from '../support/gateway-log.ts';
import { auditHistory } from '../support/history-audit.ts';
import { collect } from '../support/ws-collector.ts';

const KILLS = 10;

describe.each([
  ['redis', 'on', true],
  ['embedded files', 'off', false],
])('gateway killed 10 times while betting (stores in %s, reclaims %s)', (_label, reclaims, redis) => {
  let world: FaultWorld | undefined;
  let chainWatch: BetAccountWatch | undefined;
  afterAll(async () => {
    chainWatch?.close();
    await world?.stop();
  });

  it('settles every bet once, logs one bet_open and one bet_closed per bet, a resuming client sees each once, and the history holds each with its outcome', async () => {
    world = await FaultWorld.start({ redis, wallets: 30, env: { GW_RECLAIM_BETS: reclaims } });
    const w = world;
    chainWatch = await BetAccountWatch.start(w.chainUrl);
    const client = w.watch();
    const bettors = w.startBettors();
    for (let i = 0; i < KILLS; i++) {
      await sleep(800 + Math.random() * 1_700);
      // every other kill comes 0.4 s after a bet was answered 200, the others right after a
      // bet_closed reached the client: the moments that lost or left open history records
      if (i % 2 === 0) {
        const seen = bettors.answers.length;
        await eventually('a bet answered 200', async () => (bettors.answers.slice(seen).some((a) => a.status === 200) ? true : null), 20_000, 20);
        await sleep(400);
      } else {
        const seen = client.events.length;
        await eventually('a bet_closed on the socket', async () => (client.events.slice(seen).some((e) => e.type === 'bet_closed') ? true : null), 20_000, 20);
      }
      await w.gateway.kill();
      await sleep(Math.random() * 400);
      await w.gateway.start();
    }
    await sleep(2_000);
    await w.stopBettors();

    // every bet the chain held ends settled, without a restart (a reclaimed bet: its last write)
    await w.settledOnChain(60_000);
    const held = await chainWatch.everHeld();
    expect(chainWatch.dropped, 'the chain subscription dropped: writes may be missing').toBe(false);
    expect(held.unseen, 'bets on chain that the subscription never announced').toEqual([]);
    const bets = held.bets;
    expect(bets.length).toBeGreaterThan(30);
    expect(bets.filter((b) => b.status === 0).map((b) => b.id)).toEqual([]);
    for (const id of w.placed)
      expect(
        bets.some((b) => b.id.toString() === id),
        `bet ${id} answered 200 but is not on chain`,
      ).toBe(true);
    for (const b of bets)
      expect(w.exitTickOf(b), `exit price ${b.exitPrice} of bet ${b.id} (expiry ${b.expireTime}) is not a tick of the 30 s before expiry`).toBeDefined();

    // the history: a record per bet with the chain's outcome and its close transaction (soft: the
    // event-log checks below still run and report)
    const historyFindings = await auditHistory(w.base, bets);
    const historyWarnings = logLines(w.gateway.output())
      .filter((l) => /history/.test(l.msg) && Number(l.level) >= 40)
      .map((l) => `${l.msg} ${l.betId ?? ''}`);
    expect
      .soft(
        historyFindings,
        `GET /api/bets/:id against the chain (${bets.length} bets; the gateway logged: ${historyWarnings.join('; ') || 'no history warning'})`,
      )
      .toEqual([]);

    // the log, replayed from the start: one bet_open and one bet_closed per bet, with the chain's outcome
    await sleep(1_500);
    const replay = await collect(`${w.base.replace('http', 'ws')}/api/ws?since=0`);
    const lastSeq = client.lastSeq;
    await replay.until((m) => m.some((e) => typeof e.seq === 'number' && (e.seq as number) >= lastSeq), 20_000);
    replay.close();
    const log = replay.messages.filter((e) => typeof e.seq === 'number');
    for (const b of bets) {
      const id = b.id.toString();
      expect(
        log.filter((e) => e.type === 'bet_open' && e.id === id),
        `bet_open of ${id}`,
      ).toHaveLength(1);
      const closed = log.filter((e) => e.type === 'bet_closed' && e.id === id);
      expect(closed, `bet_closed of ${id}`).toHaveLength(1);
      expect(closed[0]).toMatchObject({ status: b.status, exitPrice: Number(b.exitPrice) });
    }
    const betIds = new Set(bets.map((b) => b.id.toString()));
    expect(log.filter((e) => e.type === 'bet_closed' && !betIds.has(String(e.id)))).toEqual([]);
    if (redis) {
      const r = new Redis(w.redis!.url);
      const stream = await r.xrange('gw:events', '-', '+');
      await r.quit();
      const closedInStream = stream.map(([, f]) => JSON.parse(f[1] as string)).filter((e) => e.type === 'bet_closed');
      expect(closedInStream.length).toBe(bets.length);
    }

    // the client that resumed after every kill: each bet event once, seqs increasing, every bet's close seen
    // (the price snapshot sent on each connect repeats a price it already had: docs/gateway-api.md#events)
    await sleep(500);
    client.close();
    expect(client.resumes).toBeGreaterThanOrEqual(KILLS);
    const seqs = client.events.filter((e) => e.type !== 'price').map((e) => e.seq as number);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    for (const b of bets) expect(client.events.filter((e) => e.type === 'bet_closed' && e.id === b.id.toString())).toHaveLength(1);
  }, 300_000);
});
