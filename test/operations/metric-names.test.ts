/**
 * Every metric the shipped dashboard (deploy/grafana/dashboard.json) and alert rules
 * (deploy/prometheus/alerts.yml) refer to is one the services really serve
 * (docs/operations.md#metrics): the gateway process on its chain process, NATS and Redis, and the
 * exchange process on NATS and Redis, are started, given some traffic (a bet placed and settled,
 * orders filled and refused), scraped, and each name in the PromQL is looked up in the scrapes.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExchangeUnderTest, type ExchangeUnderTest } from '../exchange/harness.ts';
import { betAndSettleOnce, call, startGatewayStack, type GatewayStack } from '../support/gateway-stack.ts';
import { parseSamples, sampleSum } from '../support/prometheus.ts';
import { dashboardExprs, exposedNames, metricNamesIn, ruleExprs, unknownNames } from '../support/promql-names.ts';

const dashboard: unknown = JSON.parse(readFileSync('deploy/grafana/dashboard.json', 'utf8'));
const rules = readFileSync('deploy/prometheus/alerts.yml', 'utf8');

let stack: GatewayStack;
let exchange: ExchangeUnderTest;
let gatewayText = '';
let exchangeText = '';

async function scrape(url: string): Promise<string> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return res.text();
}

/** A bet placed and settled through the gateway's API, over its sockets, and one unknown path. */
async function betAndSettle(): Promise<void> {
  await betAndSettleOnce(stack);
  await call(stack.base, 'GET', '/no/such/path');
}

beforeAll(async () => {
  [stack, exchange] = await Promise.all([startGatewayStack({ GW_NODE_ID: 'gw-metric-names' }), startExchangeUnderTest()]);
  const id = await exchange.openAccount('metric-names', '1000');
  expect((await exchange.order(id, 'BTCUSDT', 'BUY', '0.5', 'k-1')).status).toBe(201);
  expect((await exchange.order(id, 'BTCUSDT', 'BUY', '0.5', 'k-1')).status).toBe(201);
  expect((await exchange.order(id, 'BTCUSDT', 'SELL', '5')).status).toBe(409);
  await betAndSettle();
  [gatewayText, exchangeText] = await Promise.all([scrape(`${stack.base}/metrics`), scrape(`${exchange.mgmtUrl}/actuator/prometheus`)]);
}, 240_000);

afterAll(async () => {
  await Promise.all([stack?.stop(), exchange?.stop()]);
});

const served = () => new Set([...exposedNames(gatewayText), ...exposedNames(exchangeText)]);
const dashboardNames = () => dashboardExprs(dashboard).flatMap(metricNamesIn);
const ruleNames = () => ruleExprs(rules).flatMap(metricNamesIn);

describe('metric names of the dashboard and the alert rules', () => {
  it('the scrapes carry the traffic: labelled counters and histograms have samples', () => {
    const gw = parseSamples(gatewayText);
    const ex = parseSamples(exchangeText);
    expect(sampleSum(gw, 'gateway_bets_settled_total')).toBeGreaterThanOrEqual(1);
    expect(sampleSum(gw, 'gateway_chain_rpc_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(sampleSum(gw, 'gateway_http_requests_total', { route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(sampleSum(gw, 'gateway_leader')).toBe(1);
    expect(sampleSum(gw, 'gateway_dependency_up', { dependency: 'redis' })).toBe(1);
    expect(sampleSum(gw, 'gateway_dependency_up', { dependency: 'nats' })).toBe(1);
    expect(sampleSum(gw, 'gateway_dependency_up', { dependency: 'chain' })).toBe(1);
    expect(sampleSum(ex, 'exchange_orders_total', { status: 'FILLED' })).toBe(2);
    expect(sampleSum(ex, 'exchange_redis_seconds_count', { operation: 'commit' })).toBeGreaterThanOrEqual(1);
    expect(sampleSum(ex, 'exchange_dependency_up', { dependency: 'redis' })).toBe(1);
    expect(sampleSum(ex, 'exchange_dependency_up', { dependency: 'nats' })).toBe(1);
  });

  it('every name the dashboard uses is served', () => {
    const names = dashboardNames();
    expect(new Set(names).size).toBeGreaterThanOrEqual(30);
    expect(unknownNames(names, served())).toEqual([]);
  });

  it('every name the alert rules use is served', () => {
    const names = ruleNames();
    expect(new Set(names).size).toBeGreaterThanOrEqual(14);
    expect(unknownNames(names, served())).toEqual([]);
  });

  it('a misspelt name in a panel is caught', () => {
    const misspelt = JSON.parse(JSON.stringify(dashboard).replace('gateway_settlement_lag_seconds_bucket', 'gateway_settlement_lag_second_bucket')) as unknown;
    expect(unknownNames(dashboardExprs(misspelt).flatMap(metricNamesIn), served())).toEqual(['gateway_settlement_lag_second_bucket']);
    const renamed = rules.replace('gateway_tx_pending > 50', 'gateway_txs_pending > 50');
    expect(unknownNames(ruleExprs(renamed).flatMap(metricNamesIn), served())).toEqual(['gateway_txs_pending']);
  });

  it('names are read from PromQL, not from label values or strings', () => {
    expect(metricNamesIn('sum by (state) (gateway_bet_actors{job=~"gateway_x", state=~".*Backoff"}) > 0')).toEqual(['gateway_bet_actors']);
    expect(metricNamesIn('histogram_quantile(0.99, sum by (le) (rate(exchange_redis_seconds_bucket[5m])))')).toEqual(['exchange_redis_seconds_bucket']);
    expect(metricNamesIn('label_values(gateway_bets_placed_total, job)')).toEqual(['gateway_bets_placed_total']);
    expect(metricNamesIn('gateway_price_age_seconds > 30 or gateway_price_age_seconds != gateway_price_age_seconds')).toHaveLength(3);
    expect(
      ruleExprs(
        '      - alert: X\n        expr: >-\n          sum(rate(gateway_a_total[5m]))\n            / sum(rate(gateway_b_total[5m])) > 0.05\n        for: 5m\n',
      ),
    ).toEqual(['sum(rate(gateway_a_total[5m])) / sum(rate(gateway_b_total[5m])) > 0.05']);
  });
});
