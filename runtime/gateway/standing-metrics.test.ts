import { describe, expect, it } from 'vitest';
import { parseSamples, sampleSum } from '../../test/support/prometheus.ts';
import { createGatewayMetrics, type LiveGatewayState } from './metrics.ts';
import { PAST_EXPIRY_SECONDS } from './standing-metrics.ts';

const NOW = 1_700_000_000_000;

/** A gateway's live state with series whose bets expire at `expiries` (unix s). */
function live(expiries: number[], extra: Partial<LiveGatewayState> = {}): LiveGatewayState {
  const ids = expiries.map((_, i) => String(i + 1));
  return {
    sockets: () => 0,
    lastTickMs: () => NOW,
    actors: {
      seriesIds: () => ids,
      summaryOf: (id) => ({ value: { open: 'placed' }, expireTime: expiries[Number(id) - 1] as number }),
      stats: () => ({ live: ids.length, dormant: 0, actorFailures: 0, actorRestarts: 0, commitFailures: 0 }),
    },
    now: () => NOW,
    ...extra,
  };
}

const scrape = async (metrics: ReturnType<typeof createGatewayMetrics>) => parseSamples(await metrics.registry.metrics());

describe('gateway standing metrics', () => {
  it('bets past expiry: live series whose bet expired more than 30 s ago', async () => {
    const metrics = createGatewayMetrics();
    const s = NOW / 1000;
    metrics.observeLive(live([s + 10, s - 5, s - PAST_EXPIRY_SECONDS + 1, s - PAST_EXPIRY_SECONDS - 1, s - 600]));
    expect(sampleSum(await scrape(metrics), 'gateway_bets_past_expiry')).toBe(2);
  });

  it('leader: the gauge reads the leadership at the scrape; changes are counted both ways', async () => {
    const metrics = createGatewayMetrics();
    let leading = false;
    metrics.observeLive(live([], { leader: () => leading }));
    let samples = await scrape(metrics);
    expect(sampleSum(samples, 'gateway_leader')).toBe(0);
    expect(sampleSum(samples, 'gateway_leader_changes_total', { change: 'elected' })).toBe(0);
    leading = true;
    metrics.leaderChanged(true);
    metrics.leaderChanged(false);
    metrics.leaderChanged(true);
    samples = await scrape(metrics);
    expect(sampleSum(samples, 'gateway_leader')).toBe(1);
    expect(sampleSum(samples, 'gateway_leader_changes_total', { change: 'elected' })).toBe(2);
    expect(sampleSum(samples, 'gateway_leader_changes_total', { change: 'lost' })).toBe(1);
  });

  it('event relay: its lag and backlog; an unreadable outbox is NaN and the scrape still answers', async () => {
    const metrics = createGatewayMetrics();
    let backlog: () => Promise<number> = async () => 7;
    metrics.observeLive(live([], { relay: { lagSeconds: () => 42, backlog: () => backlog() } }));
    let samples = await scrape(metrics);
    expect(sampleSum(samples, 'gateway_event_relay_lag_seconds')).toBe(42);
    expect(sampleSum(samples, 'gateway_event_relay_backlog')).toBe(7);
    backlog = () => Promise.reject(new Error('redis is unavailable'));
    samples = await scrape(metrics);
    expect(sampleSum(samples, 'gateway_event_relay_backlog')).toBeNaN();
  });
});
