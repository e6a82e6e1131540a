/**
 * Whether each dependency of a service is reachable now, as the connections themselves know it
 * (docs/operations.md#metrics: `gateway_dependency_up`, `exchange_dependency_up`). Each
 * connection to a dependency gets a link, which it moves on its own lifecycle events (the Redis
 * client's ready and close, the NATS connection's disconnect and reconnect); a probe answers for
 * what is only known by asking (the gateway's chain health check). Read at scrape time: a
 * dependency is up when every one of its links and probes is; one that has neither is not shown.
 *
 * @example
 *   const links = new DependencyLinks();
 *   const redis = openRedis(url, { log, name: 'gateway', watch: links.link('redis') });
 *   links.probe('chain', () => health.report().checks.chain === 'UP');
 *   links.states(); // [['redis', true], ['chain', false]]
 */
import type { Gauge } from 'prom-client';
import type { Dependency } from '../kernel/errors.ts';

/** Moved by a connection: up (connected and ready) or not. */
export type LinkWatch = (up: boolean) => void;

/** The links and probes of one service's dependencies. */
export class DependencyLinks {
  private readonly checks = new Map<Dependency, Array<() => boolean>>();

  /** A new link to `dependency`, down until its connection says it is up. */
  link(dependency: Dependency): LinkWatch {
    const cell = { up: false };
    this.add(dependency, () => cell.up);
    return (up) => {
      cell.up = up;
    };
  }

  /** Answers for `dependency` by asking `up` at each read. */
  probe(dependency: Dependency, up: () => boolean): void {
    this.add(dependency, up);
  }

  /** Each dependency with a link or a probe, and whether all of them say up. */
  states(): Array<[Dependency, boolean]> {
    return [...this.checks].map(([dependency, checks]) => [dependency, checks.every((up) => up())]);
  }

  private add(dependency: Dependency, check: () => boolean): void {
    const list = this.checks.get(dependency);
    if (list) list.push(check);
    else this.checks.set(dependency, [check]);
  }
}

/** Sets a `{dependency}` gauge from `links` (1 up, 0 down): the collect of `<service>_dependency_up`. */
export function setDependencyGauge(gauge: Gauge<'dependency'>, links: DependencyLinks | undefined): void {
  if (!links) return;
  for (const [dependency, up] of links.states()) gauge.set({ dependency }, up ? 1 : 0);
}
