/**
 * The landing goals (docs/architecture.md#landing-transactions), each beside a clean run of the
 * same benchmark: two phases one after the other, each on a fresh stack (`npm run chain` behind
 * the counting proxy, a gateway process, Profile A, embedded stores, a BENCH_LANDING_WINDOW (15) s window, a 200 ms
 * settlement scan, no reclaims so every bet stays on chain to be audited). CLEAN: no fault
 * profile. FAULTS: BENCH_LANDING_FAULTS (drops, status lag, 429 bursts, PubSub cuts; see
 * docs/operations.md#a-fault-profile). In each, BENCH_LANDING_BETTORS (24) funded wallets bet in
 * loops for BENCH_LANDING_SECONDS (120) after BENCH_LANDING_WARMUP (5) s not measured, a
 * WebSocket client records bet_open/bet_closed, and once the loops stop the phase waits (bounded)
 * until every bet is settled and nothing is left landing, then audits every answer against the
 * bets on chain. BENCH_SIGNED_PRICES=on runs both phases with signed prices on (every placement
 * carries its entry tick, every close its exit pair). Goals are reported, not asserted
 * (docs/operations.md#benchmarks).
 */
import { randomInt } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { BetEvents } from './support/bet-events.ts';
import { BetLoop, fundedWallets } from './support/bettors.ts';
import { ChainAudit } from './support/chain-audit.ts';
import { JsonClient } from '../test/support/json-client.ts';
import { landingRows, type PhaseResult } from './support/landing-measures.ts';
import { report, sleep, until } from './support/measure.ts';
import { delta, scrape } from './support/prom.ts';
import { measuredGatewayArgs, startChain, startGatewayProcess, type GatewayUnderTest } from './support/stack.ts';

const BETTORS = Number(process.env.BENCH_LANDING_BETTORS ?? 24);
const SECONDS = Number(process.env.BENCH_LANDING_SECONDS ?? 120);
const WARMUP_S = Number(process.env.BENCH_LANDING_WARMUP ?? 5);
const PROFILE = process.env.BENCH_LANDING_FAULTS ?? 'drop=0.3,status-lag-ms=1500,burst-429=2000/15000,pubsub-cut-ms=20000';
// a seed is drawn here unless the profile names one, and printed with it, so a run can be repeated
const FAULTS = /(^|,)seed=/.test(PROFILE) || PROFILE === '' || PROFILE === 'off' ? PROFILE : `${PROFILE},seed=${randomInt(1, 2 ** 31)}`;
/**
 * the bet window, s [15: the game's own]. A bettor has one open bet at a time, so its cycle is the
 * window plus the landing and the settling; a shorter window (5) weighs those more.
 */
const EXPIRY_S = Number(process.env.BENCH_LANDING_WINDOW ?? 15);
/** the longest wait, once the loops stopped, for every bet to be settled and nothing to be landing */
const DRAIN_MS = 60_000;

/** Whether the gateway has nothing left landing (a scrape that fails counts as not yet). */
const nothingLanding = (base: string) =>
  scrape(base).then(
    (m) => m.get('gateway_tx_pending') === 0,
    () => false,
  );

async function phase(name: string, faults: string): Promise<PhaseResult> {
  // an empty CHAIN_FAULTS switches the profile off, whatever the caller's environment holds
  // BENCH_SIGNED_PRICES=on: the chain initialises the contract with signed prices on, trusting the data dir's signer, whose ticks the gateway's feed signs
  const signed: Record<string, string> = process.env.BENCH_SIGNED_PRICES === 'on' ? { SIGNED_PRICES: 'on', GW_INIT: 'on' } : {};
  const chain = await startChain({ GW_EXPIRY_SECONDS: String(EXPIRY_S), CHAIN_FAULTS: faults, ...signed });
  let gateway: GatewayUnderTest | null = null;
  try {
    gateway = await startGatewayProcess(
      chain,
      null,
      { GW_EXPIRY_SECONDS: String(EXPIRY_S), SMART_SETTLE_INTERVAL_MS: '200', GW_RECLAIM_BETS: 'off', CHAIN_FAULTS: '' },
      measuredGatewayArgs(),
    );
    const base = gateway.base;
    const client = new JsonClient(base, BETTORS + 8, 30_000);
    const events = await BetEvents.watch(base);
    try {
      await until('a price', async () => (await client.call('GET', '/api/price').catch(() => ({ status: 0 }))).status === 200, 30_000, 200);
      const wallets = await fundedWallets(client, BETTORS);
      const before = await scrape(base);
      const loop = new BetLoop(client, wallets, { afterBetMs: EXPIRY_S * 1000 + 100, afterRefusalMs: 300, amountUnits: '100000000' });
      loop.start();
      await sleep(WARMUP_S * 1000);
      const from = Date.now();
      await sleep(SECONDS * 1000);
      const to = Date.now();
      await loop.stop();

      const acknowledged = loop.answers.filter((a) => a.status === 200).map((a) => String(a.body?.id));
      const drainStart = Date.now();
      const drained = await until(
        'every bet settled and nothing landing',
        async () => events.allClosed(acknowledged) && (await nothingLanding(base)),
        DRAIN_MS,
        500,
      ).then(
        () => true,
        () => false,
      );
      const drainSeconds = (Date.now() - drainStart) / 1000;
      const after = await scrape(base);

      const audit = new ChainAudit(chain.directUrl, chain.dataDir);
      try {
        const bets = await audit.betsOf(wallets);
        const pendingTx = loop.answers.filter((a) => a.status === 500 && a.body?.pending === true).map((a) => String(a.body?.tx));
        const landedPending = await audit.landed(pendingTx);
        const metric = (n: string) => delta(before, after, n);
        return {
          name,
          wallets,
          answers: loop.answers,
          from,
          to,
          events,
          bets,
          landedPending,
          drained,
          drainSeconds,
          tx: {
            sends: metric('gateway_tx_sends_total'),
            landed: metric('gateway_tx_landed_total'),
            expired: metric('gateway_tx_expired_total'),
            resigned: metric('gateway_tx_resigned_total'),
            failed: metric('gateway_tx_failed_total'),
            landingSeconds: metric('gateway_tx_landing_seconds_sum'),
            landingCount: metric('gateway_tx_landing_seconds_count'),
            pendingAtEnd: after.get('gateway_tx_pending') ?? Number.NaN,
          },
        };
      } finally {
        audit.close();
      }
    } finally {
      events.close();
      client.close();
    }
  } finally {
    if (process.env.BENCH_GATEWAY_LOG && gateway) writeFileSync(`${process.env.BENCH_GATEWAY_LOG}.${name}`, gateway.process.output());
    await gateway?.stop();
    await chain.stop();
  }
}

try {
  const clean = await phase('clean', '');
  const faulty = await phase('faults', FAULTS);
  report(
    `landing: ${BETTORS} wallets betting in loops for ${SECONDS} s (after ${WARMUP_S} s of warm-up), ${EXPIRY_S} s windows, ` +
      `GW_RESEND_MS=${process.env.GW_RESEND_MS ?? '700 (default)'}, GW_BET_ANSWER_MS=${process.env.GW_BET_ANSWER_MS ?? '5000 (default)'}; ` +
      `FAULTS (CHAIN_FAULTS=${FAULTS}) beside CLEAN (no fault profile), each on a fresh chain process and gateway process`,
    landingRows(faulty, clean),
  );
  process.exit(0);
} catch (err) {
  console.error(`landing: could not run: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
