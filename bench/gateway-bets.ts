/**
 * Gateway bet path over HTTP (loopback, bounded), on embedded defaults in-process (local chain,
 * memory stores, synthetic prices): Profile A `POST /api/bet` latency and throughput for
 * BENCH_GW_BETS custodial wallets (one bet each, BENCH_GW_CONCURRENCY in flight), then the
 * time until the scheduler has settled them all (`bet_closed` on the WebSocket).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { pino } from 'pino';
import { readGatewayConfig } from '../runtime/gateway/config.ts';
import { startGateway } from '../bin/gateway-app.ts';

const COUNT = Number(process.env.BENCH_GW_BETS ?? 200);
const CONCURRENCY = Number(process.env.BENCH_GW_CONCURRENCY ?? 16);
const dataDir = mkdtempSync(join(tmpdir(), 'bench-gw-'));
const gw = await startGateway(
  readGatewayConfig({ DATA_DIR: dataDir, GATEWAY_PORT: '0', GW_EXPIRY_SECONDS: '2', SMART_SETTLE_INTERVAL_MS: '200' }),
  { log: pino({ level: 'warn' }), host: '127.0.0.1' },
);
const base = `http://127.0.0.1:${gw.port}/api`;
const post = async (path: string, body: unknown) =>
  (await fetch(base + path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })).json() as Promise<Record<string, string>>;

async function pool<T>(items: T[], width: number, fn: (item: T) => Promise<void>): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => { while (next < items.length) await fn(items[next++] as T); }));
  return performance.now() - started;
}
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!.toFixed(1);

try {
  while ((await fetch(`${base}/price`)).status !== 200) await new Promise((r) => setTimeout(r, 100));
  const wallets: string[] = [];
  const funding = await pool(Array.from({ length: COUNT }, (_, i) => i), CONCURRENCY, async () => {
    const { address } = await post('/wallet', {});
    await fetch(`${base}/faucet/${address}`);
    wallets.push(address as string);
  });
  const closed = new Set<string>();
  const ws = new WebSocket(`ws://127.0.0.1:${gw.port}/api/ws`);
  ws.on('message', (m) => {
    const e = JSON.parse(String(m)) as { type: string; id?: string };
    if (e.type === 'bet_closed' && e.id) closed.add(e.id);
  });
  await new Promise((r) => ws.once('open', r));

  const latencies: number[] = [];
  const ids: string[] = [];
  const placing = await pool(wallets, CONCURRENCY, async (address) => {
    const t = performance.now();
    const r = await post('/bet', { address, side: ids.length % 2 ? 'DOWN' : 'UP', amountUnits: '100000000' });
    latencies.push(performance.now() - t);
    if (!r.id) throw new Error(`bet refused: ${JSON.stringify(r)}`);
    ids.push(r.id);
  });
  const placedAt = performance.now();
  while (ids.some((id) => !closed.has(id))) await new Promise((r) => setTimeout(r, 20));
  const settleMs = performance.now() - placedAt;
  ws.close();
  console.log(`wallets created and funded: ${COUNT} in ${(funding / 1000).toFixed(2)} s`);
  console.log(`POST /api/bet: ${COUNT} bets, ${CONCURRENCY} in flight: ${(COUNT / (placing / 1000)).toFixed(1)} bets/s; latency p50 ${pct(latencies, 50)} ms, p95 ${pct(latencies, 95)} ms, max ${pct(latencies, 100)} ms`);
  console.log(`all ${COUNT} settled ${(settleMs / 1000).toFixed(2)} s after the last placement (window 2 s, scan every 200 ms)`);
} finally {
  await gw.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
