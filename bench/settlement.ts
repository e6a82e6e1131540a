/**
 * N bets expiring in the same second (issue goals, N = 10,000: all settled; the first close
 * within one scan period after expiry, the last within 15 s; <= 0.5 RPC calls per settled bet).
 *
 * Staging (not measured): the local chain is opened in this process with its Clock pinned, so
 * that BENCH_SETTLE_BETS (10000) bettors, funded and placed with pre-signed transactions, all get
 * the same expire time, BENCH_SETTLE_LEAD_S (90) seconds ahead. Then the chain runs as its own
 * process (Clock on wall time again) behind the counting proxy, with Redis and a gateway process
 * that has never seen these bets: its settler finds them in its chain mirror at expiry and
 * settles them. Times come from `bet_closed` events on the gateway's WebSocket.
 * Baseline in the same run: the chain's pre-signed place_bet capacity while staging.
 * BENCH_SIGNED_PRICES=on turns signed prices on after staging: every close carries the signed pair
 * around the expiry (docs/decisions.md#signed-prices).
 */
import { Keypair } from '@solana/web3.js';
import { writeFileSync } from 'node:fs';
import WebSocket from 'ws';
import { startLocalChain } from '../adapters/chain/local/start.ts';
import { log } from '../kernel/log.ts';
import { cpuMs, percentile, report, sleep, until } from './support/measure.ts';
import { blockhash, firstBetWires, fundBettors, sendBatches, signedPricesOnWire, type RpcExchange } from './support/raw-chain.ts';
import { loadOrCreatePriceSignerKey } from '../adapters/feed/price-signer.ts';
import { measuredGatewayArgs, startBenchRedis, startChain, startGatewayProcess } from './support/stack.ts';
import { tempDir } from '../test/support/temp-dir.ts';

const N = Number(process.env.BENCH_SETTLE_BETS ?? 10_000);
const LEAD_S = Number(process.env.BENCH_SETTLE_LEAD_S ?? 90);
const EXPIRY_S = 15;
const STAKE = 100_000_000n;
const SCAN_MS = 2_000;
/** BENCH_SIGNED_PRICES=on: signed prices on once the bets are staged (the gateway's feed signs with the data dir's price signer) */
const SIGNED = process.env.BENCH_SIGNED_PRICES === 'on';

/** Stages N open bets that all expire at `expireAt` (unix s) in a fresh data dir; returns the dir and the place_bet rate. */
async function stage(expireAt: number): Promise<{ dataDir: string; placeRate: number }> {
  const dataDir = tempDir('bench-settle-');
  const betTimeMs = (expireAt - EXPIRY_S) * 1000;
  const init = { minAmount: STAKE, maxAmount: 10_000_000_000n, multiplierBps: 13_000n, expirySeconds: BigInt(EXPIRY_S), refundAfterSeconds: 300n };
  const chain = await startLocalChain({ dataDir, port: 0, init, log: log.child({}, { level: 'warn' }), now: () => betTimeMs });
  try {
    const rpc: RpcExchange = (body) => chain.transport.exchange(body as object);
    const bettors = Array.from({ length: N }, () => Keypair.generate());
    await fundBettors(rpc, dataDir, bettors, STAKE, 100);
    const bets = firstBetWires(dataDir, bettors, STAKE, await blockhash(rpc), (i) => (i % 2 ? 'UP' : 'DOWN'));
    const seconds = await sendBatches(rpc, bets, 100);
    // placed at relayer prices; from here every close must carry the signed pair around the expiry
    if (SIGNED) await sendBatches(rpc, [signedPricesOnWire(dataDir, loadOrCreatePriceSignerKey(dataDir).publicKey, await blockhash(rpc))], 1);
    return { dataDir, placeRate: N / seconds };
  } finally {
    await chain.stop();
  }
}

const expireAt = Math.floor(Date.now() / 1000) + LEAD_S;
const staged = await stage(expireAt);
const redis = await startBenchRedis();
const chain = await startChain({}, 0, staged.dataDir);
const gateway = await startGatewayProcess(chain, redis, { SMART_SETTLE_INTERVAL_MS: String(SCAN_MS) }, measuredGatewayArgs());
try {
  const closedAt = new Map<string, number>();
  const openedAt = new Map<string, number>();
  const ws = new WebSocket(`${gateway.base.replace('http', 'ws')}/api/ws`);
  ws.on('message', (m) => {
    const e = JSON.parse(String(m)) as { type: string; id?: string };
    if (e.type === 'bet_closed' && e.id && !closedAt.has(e.id)) closedAt.set(e.id, Date.now());
    if (e.type === 'bet_open' && e.id && !openedAt.has(e.id)) openedAt.set(e.id, Date.now());
  });
  await new Promise((r) => ws.once('open', r));
  const lead = expireAt * 1000 - Date.now();
  if (lead < 5_000) throw new Error(`staging took too long: the bets expire ${Math.round(lead / 1000)} s from now; raise BENCH_SETTLE_LEAD_S`);
  await sleep(lead - 2_000);
  chain.rpcProxy.reset();
  const cpu0 = cpuMs(gateway.pid);
  await until(`all ${N} bets settled`, () => closedAt.size >= N, 180_000, 100).catch((err: unknown) =>
    console.error(`${(err as Error).message}: ${closedAt.size} settled`),
  );
  const rpc = chain.rpcProxy.calls();
  const cpu = cpuMs(gateway.pid) - cpu0;
  ws.close();
  const after = [...closedAt.values()].map((t) => (t - expireAt * 1000) / 1000);
  const adopted = [...openedAt.values()].map((t) => (t - expireAt * 1000) / 1000);
  report(`${N} bets expiring in the same second (gateway process on the chain process and Redis, scan every ${SCAN_MS} ms)`, [
    { measure: 'settled', value: closedAt.size, unit: 'bets', goal: `all ${N}` },
    {
      measure: 'adopted (bet_open) after expiry',
      value: Math.min(...adopted),
      unit: 's',
      detail: `last ${Math.max(...adopted).toFixed(2)} s, ${adopted.length} bets`,
    },
    { measure: 'first close after expiry', value: Math.min(...after), unit: 's', goal: `<= ${SCAN_MS / 1000} s (one scan period)` },
    {
      measure: 'last close after expiry',
      value: Math.max(...after),
      unit: 's',
      goal: '<= 15 s',
      detail: `p50 ${percentile(after, 50).toFixed(2)} s, p99 ${percentile(after, 99).toFixed(2)} s`,
    },
    {
      measure: 'RPC calls per settled bet',
      value: rpc / Math.max(1, closedAt.size),
      unit: 'calls',
      goal: '<= 0.5',
      detail: `gateway CPU ${(cpu / Math.max(1, closedAt.size)).toFixed(2)} ms per settled bet`,
    },
    {
      measure: 'closes per second',
      value: closedAt.size / Math.max(...after),
      unit: 'bets/s',
      baseline: { name: 'chain pre-signed place_bet (staging)', value: staged.placeRate },
    },
  ]);
} finally {
  if (process.env.BENCH_GATEWAY_LOG) writeFileSync(process.env.BENCH_GATEWAY_LOG, gateway.process.output());
  await gateway.stop();
  await chain.stop();
  await redis.stop();
}
