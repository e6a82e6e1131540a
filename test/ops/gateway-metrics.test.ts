/**
 * The gateway's /metrics, /health and /ready, black box: the real gateway process on a real
 * chain process, NATS and Redis (GW_EXPIRY_SECONDS=12, settlement every 200 ms). A bet is placed
 * and settled over real sockets, and the scrape shows the counters moved. The expiry leaves room
 * for the ops CLI (three processes started one after the other) to see a bet still open.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { betAndSettleOnce, call, EventClient, startGatewayStack, type GatewayStack } from '../support/gateway-stack.ts';
import { hasMetric, parseSamples, sampleSum } from '../support/prometheus.ts';
import { runOps } from './support.ts';

let stack: GatewayStack;
const api = (method: string, path: string, body?: unknown) => call(stack.base, method, path, body);

async function scrape() {
  const res = await fetch(`${stack.base}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  return Object.assign(parseSamples(text), { text });
}

beforeAll(async () => {
  stack = await startGatewayStack({ GW_NODE_ID: 'gw-metrics-1', GW_EXPIRY_SECONDS: '12' });
}, 180_000);

afterAll(async () => {
  await stack?.stop();
});

describe('health and readiness', () => {
  it('/health is exactly {status, node, leader}; /ready names the missing price, then answers 200', async () => {
    for (const path of ['/health', '/api/health']) {
      const h = await api('GET', path);
      expect(h.status).toBe(200);
      expect(h.body).toEqual({ status: 'UP', node: 'gw-metrics-1', leader: true });
    }
    const notReady = await api('GET', '/ready');
    expect(notReady.status).toBe(503);
    expect(notReady.body.error).toMatch(/price/);
    await stack.tick('150.00');
    await expect.poll(async () => (await api('GET', '/ready')).status, { timeout: 5_000 }).toBe(200);
  });
});

describe('metrics', () => {
  it('counts a bet placed and settled, HTTP requests by route pattern, chain RPC calls, sockets and price age', async () => {
    const before = await scrape();
    // the standard names dashboards and alerts expect, once per process (docs/operations.md#metrics)
    expect(hasMetric(before, 'process_cpu_user_seconds_total')).toBe(true);
    expect(hasMetric(before, 'nodejs_heap_size_used_bytes')).toBe(true);
    expect(hasMetric(before, 'gateway_process_cpu_user_seconds_total')).toBe(false);

    const ws = new EventClient(stack.wsUrl); // open while scraped: gateway_ws_connections
    await ws.opened;
    const { address } = await betAndSettleOnce(stack);

    const after = await scrape();
    expect(sampleSum(after, 'gateway_bets_placed_total') - sampleSum(before, 'gateway_bets_placed_total')).toBe(1);
    expect(
      sampleSum(after, 'gateway_bets_settled_total', { outcome: 'payout_done' }) - sampleSum(before, 'gateway_bets_settled_total', { outcome: 'payout_done' }),
    ).toBe(1);
    expect(sampleSum(after, 'gateway_settlement_lag_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(sampleSum(after, 'gateway_settlement_lag_seconds_sum')).toBeGreaterThan(0);
    // route patterns, never raw paths (no address in a label)
    expect(sampleSum(after, 'gateway_http_requests_total', { route: '/api/bet', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(sampleSum(after, 'gateway_http_requests_total', { route: '/api/faucet/:address', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(after.some((s) => Object.values(s.labels).some((l) => l.includes(address)))).toBe(false);
    expect(sampleSum(after, 'gateway_chain_rpc_seconds_count', { method: 'sendTransaction' })).toBeGreaterThanOrEqual(1);
    expect(after.text).toContain('# TYPE gateway_chain_rpc_errors_total counter'); // labelled: no sample until an error
    expect(sampleSum(after, 'gateway_ws_connections')).toBeGreaterThanOrEqual(1);
    // the landing engine: the placement, the faucet grant and the close each landed, each sent at least once
    const landed = sampleSum(after, 'gateway_tx_landed_total') - sampleSum(before, 'gateway_tx_landed_total');
    expect(landed).toBeGreaterThanOrEqual(3);
    expect(sampleSum(after, 'gateway_tx_sends_total') - sampleSum(before, 'gateway_tx_sends_total')).toBeGreaterThanOrEqual(landed);
    expect(sampleSum(after, 'gateway_tx_landing_seconds_count') - sampleSum(before, 'gateway_tx_landing_seconds_count')).toBe(landed);
    expect(sampleSum(after, 'gateway_tx_pending')).toBe(0);
    expect(hasMetric(after, 'gateway_tx_resigned_total')).toBe(true);
    expect(hasMetric(after, 'gateway_bet_actor_failures_total')).toBe(true);
    expect(hasMetric(after, 'gateway_bet_actor_restarts_total')).toBe(true);
    const age = sampleSum(after, 'gateway_price_age_seconds');
    expect(age).toBeGreaterThanOrEqual(0);
    expect(age).toBeLessThan(30);
    ws.close();
  });

  it('counts live actors by state while a bet is open, and 404s under the pattern "unmatched"', async () => {
    const wallet = await api('POST', '/api/wallet', {});
    await api('GET', `/api/faucet/${wallet.body.address}`);
    await stack.tick('150.00');
    const bet = await api('POST', '/api/bet', { address: wallet.body.address, side: 'DOWN', amountUnits: '100000000' });
    expect(bet.status).toBe(200);
    await api('GET', '/no/such/path');
    const samples = await scrape();
    expect(sampleSum(samples, 'gateway_bet_actors')).toBeGreaterThanOrEqual(1);
    expect(sampleSum(samples, 'gateway_http_requests_total', { route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
    // POST /metrics is not a route: 405 like every GET-only path
    expect((await api('POST', '/api/metrics', {})).status).toBe(405);
    openBetId = bet.body.id;
    openBettor = wallet.body.address;
  });
});

let openBetId = '';
let openBettor = '';

describe('the ops CLI on the running gateway', () => {
  it('bets and bet <id> show the open bet, its snapshot and its account read from the chain; events show the settled one', async () => {
    // the gateways' events live in their shared JetStream stream (NATS); snapshots in Redis
    const env = { REDIS_URL: stack.redisUrl, SOLANA_RPC_URL: stack.chainUrl, NATS_URL: stack.gatewayEnv.NATS_URL ?? '' };
    // the three start together, so all of them see the bet before it expires
    const [bets, bet, retry] = await Promise.all([
      runOps(['bets', '--json'], env),
      runOps(['bet', openBetId, '--json'], env),
      // the gateway process listens for retry requests (this chain only waits for its expiry: nothing to do)
      runOps(['retry', openBetId, '--json'], env),
    ]);
    expect(bets.code, bets.stderr).toBe(0);
    expect(bets.json()).toContainEqual(expect.objectContaining({ id: openBetId, bettor: openBettor, attempt: 0, lastError: null }));

    expect(bet.code, bet.stderr).toBe(0);
    const out = bet.json();
    expect(out.snapshot.context).toMatchObject({ id: openBetId, bettor: openBettor });
    expect(out.chain).toMatchObject({ id: openBetId, bettor: openBettor, side: 'DOWN', amountUnits: '100000000', status: 0, statusName: 'open' });
    expect(out.evidence).toMatchObject({ entry: { price: expect.any(Number) } });

    expect(retry.code, retry.stderr).toBe(0);
    expect(retry.json()).toMatchObject({ ok: true, id: openBetId, via: 'redis', receivers: 1 });

    const events = await runOps(['events', '--since', '0', '--json'], env);
    expect(events.code, events.stderr).toBe(0);
    const types = new Set(events.json().map((e: any) => e.type));
    for (const t of ['price', 'bet_open', 'bet_closed']) expect(types.has(t)).toBe(true);
  });
});
