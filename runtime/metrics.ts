/**
 * Prometheus metrics (docs/operations.md#metrics). Each service has a registry of its own, so the
 * gateway and the exchange in one process (`npm start`) never clash; their metrics are named with
 * the service's prefix (`gateway_`, `exchange_`). The default process metrics (`process_*`,
 * `nodejs_*`, the names standard dashboards and alerts expect) are collected once per process and
 * rendered with every service's scrape: one process, one set; Prometheus' `job` and `instance`
 * labels tell the services apart.
 *
 * @example
 *   const registry = serviceRegistry();
 *   const placed = new Counter({ name: 'gateway_bets_placed_total', help: '...', registers: [registry] });
 *   const text = await registry.metrics(); // process_* and nodejs_*, then the service's; answered with PROMETHEUS_CONTENT_TYPE
 */
import { collectDefaultMetrics, Registry } from 'prom-client';

/** Content type of the text exposition format the registries render. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Buckets for request and RPC latencies, seconds (1 ms to 10 s). */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

let processMetrics: Registry | null = null;

/** The process's default metrics, collected once however many services run in it. */
function processRegistry(): Registry {
  if (!processMetrics) {
    processMetrics = new Registry();
    collectDefaultMetrics({ register: processMetrics });
  }
  return processMetrics;
}

/** A service's registry: its scrape renders the process metrics first, then the service's own. */
class ServiceRegistry extends Registry {
  private readonly shared = processRegistry();

  override async metrics(): Promise<string> {
    const [common, own] = await Promise.all([this.shared.metrics(), super.metrics()]);
    return `${common}\n${own}`;
  }
}

/** A registry for one service's metrics. */
export function serviceRegistry(): Registry {
  return new ServiceRegistry();
}
