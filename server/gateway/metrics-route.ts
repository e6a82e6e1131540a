/**
 * `GET /metrics` (also `/api/metrics`, like every GET route): the gateway's registry in the
 * Prometheus text format.
 */
import type { Registry } from 'prom-client';
import { PROMETHEUS_CONTENT_TYPE } from '../../runtime/metrics.ts';
import { TextResponse, type GatewayRouter } from './router.ts';
import { metricsRoute } from '../openapi/gateway.ts';

/** Registers the scrape route over `registry`. */
export function registerMetricsRoute(router: GatewayRouter, registry: Registry): void {
  router.get(metricsRoute, async () => new TextResponse(await registry.metrics(), PROMETHEUS_CONTENT_TYPE));
}
