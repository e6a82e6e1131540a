/**
 * Prometheus metrics of one service (prom-client conventions): each service has its own
 * registry, so the gateway and the exchange in one process (`npm start`) never clash, and every
 * metric of it, the default process metrics included, carries the service's prefix.
 *
 * @example
 *   const registry = serviceRegistry('gateway_');
 *   const placed = new Counter({ name: 'gateway_bets_placed_total', help: '...', registers: [registry] });
 *   const text = await registry.metrics(); // answered with PROMETHEUS_CONTENT_TYPE
 */
import { collectDefaultMetrics, Registry } from 'prom-client';

/** Content type of the text exposition format the registries render. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Buckets for request and RPC latencies, seconds (1 ms to 10 s). */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** A registry with the default process metrics under `prefix` (e.g. `gateway_`). */
export function serviceRegistry(prefix: string): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix });
  return registry;
}

/** Seconds elapsed since a `performance.now()` reading. */
export const secondsSince = (startedMs: number): number => (performance.now() - startedMs) / 1000;
