/**
 * The exchange's `GET /actuator/prometheus` on the management port, black box: the exchange
 * process on a private NATS (books published here) and Redis; orders are placed over HTTP and
 * the scrape shows them.
 */
import { describe, expect, it } from 'vitest';
import { exchangeForSuite } from '../exchange/harness.ts';
import { parseSamples, sampleSum } from '../support/prometheus.ts';

const ex = exchangeForSuite();

async function scrape() {
  const res = await fetch(`${ex.mgmtUrl}/actuator/prometheus`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  return Object.assign(parseSamples(text), { text });
}

describe('exchange metrics', () => {
  it('counts orders by status, their duration, idempotent replays, book ages and Redis round trips', async () => {
    const before = await scrape();
    expect(before.text).toContain('# TYPE process_cpu_user_seconds_total counter');
    expect(before.text).not.toContain('exchange_process_'); // the standard names, not a service's copy
    const id = await ex.openAccount('metrics-alice', '1000');
    expect((await ex.order(id, 'BTCUSDT', 'BUY', '0.5', 'k-1')).status).toBe(201);
    expect((await ex.order(id, 'BTCUSDT', 'BUY', '0.5', 'k-1')).status).toBe(201); // replay: no trade
    expect((await ex.order(id, 'BTCUSDT', 'SELL', '5')).status).toBe(409); // holds 0.5

    const after = await scrape();
    expect(sampleSum(after, 'exchange_orders_total', { status: 'FILLED' })).toBe(2);
    expect(sampleSum(after, 'exchange_orders_total', { status: 'INSUFFICIENT_POSITION' })).toBe(1);
    expect(sampleSum(after, 'exchange_idempotent_replays_total')).toBe(1);
    expect(sampleSum(after, 'exchange_order_seconds_count')).toBe(3);
    const btcAge = sampleSum(after, 'exchange_book_age_seconds', { symbol: 'BTCUSDT' });
    expect(btcAge).toBeGreaterThanOrEqual(0);
    expect(btcAge).toBeLessThan(30);
    expect(sampleSum(after, 'exchange_redis_seconds_count', { operation: 'commit' })).toBeGreaterThanOrEqual(1);
    expect(sampleSum(after, 'exchange_redis_seconds_count', { operation: 'load' })).toBeGreaterThanOrEqual(3);
    // health is still the plain {"status":"UP"}
    expect((await ex.mgmt.get('/actuator/health')).body).toEqual({ status: 'UP' });
  });
});
