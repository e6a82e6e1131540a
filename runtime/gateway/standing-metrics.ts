/**
 * The gateway's standing, for alerts (docs/operations.md#metrics and #alerts): bets past their
 * expiry and not settled, whether this node leads and how often that changed, how far the outbox
 * relay is behind the event stream, and whether each dependency is reachable. Gauges are read at
 * scrape time from what the running parts already know; nothing is counted per request.
 *
 * @example
 *   const standing = standingMetrics([registry], () => live);
 *   standing.leaderChanged(true); // elected
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { setDependencyGauge, type DependencyLinks } from '../dependency-links.ts';

/** A bet still live this long after its expiry counts as past expiry (the ops CLI's `bets --stuck` default). */
export const PAST_EXPIRY_SECONDS = 30;

/** What the standing gauges read from the running gateway. */
export interface GatewayStanding {
  /** live bet series: the expiry (unix s) of each one's bet in play */
  actors: {
    seriesIds(): string[];
    summaryOf(seriesId: string): { expireTime: number } | undefined;
  };
  /** whether this node leads now */
  leader?: () => boolean;
  /** the outbox relay (with NATS) */
  relay?: { lagSeconds(): number; backlog(): Promise<number> } | null;
  /** the connections to Redis and NATS, and the chain probe */
  dependencies?: DependencyLinks;
  now?: () => number;
}

/** Moved by the leadership loop. */
export interface StandingMetrics {
  /** this node became the leader (true) or stopped being it (false) */
  leaderChanged(leading: boolean): void;
}

/** Registers the standing metrics; `read` gives the running gateway once it is assembled. */
export function standingMetrics(registers: Registry[], read: () => GatewayStanding | null): StandingMetrics {
  new Gauge({
    name: 'gateway_bets_past_expiry',
    help: `Live bet series whose bet in play expired more than ${PAST_EXPIRY_SECONDS} s ago and is not settled`,
    registers,
    collect() {
      const s = read();
      if (!s) return;
      const before = ((s.now ?? Date.now)() - PAST_EXPIRY_SECONDS * 1000) / 1000;
      let n = 0;
      for (const id of s.actors.seriesIds()) {
        const expire = s.actors.summaryOf(id)?.expireTime;
        if (expire !== undefined && expire < before) n++;
      }
      this.set(n);
    },
  });
  new Gauge({
    name: 'gateway_leader',
    help: 'Whether this gateway leads (runs the bet actors and the settler) now: 1 or 0',
    registers,
    collect() {
      const leader = read()?.leader;
      if (leader) this.set(leader() ? 1 : 0);
    },
  });
  const changes = new Counter({
    name: 'gateway_leader_changes_total',
    help: 'Times this gateway became the leader (change="elected") or stopped being it (change="lost")',
    labelNames: ['change'],
    registers,
  });
  // both series exist from the start, so increase() sees the first change
  changes.inc({ change: 'elected' }, 0);
  changes.inc({ change: 'lost' }, 0);
  new Gauge({
    name: 'gateway_event_relay_lag_seconds',
    help: 'Seconds since the outbox relay last found every committed event relayed to the NATS stream (0 on a node that does not relay)',
    registers,
    collect() {
      const relay = read()?.relay;
      if (relay) this.set(relay.lagSeconds());
    },
  });
  new Gauge({
    name: 'gateway_event_relay_backlog',
    help: 'Committed events not relayed to the NATS stream yet (0 on a node that does not relay)',
    registers,
    async collect() {
      const relay = read()?.relay;
      // the outbox unreadable (Redis down): NaN, and the scrape still answers
      if (relay) this.set(await relay.backlog().catch(() => Number.NaN));
    },
  });
  new Gauge({
    name: 'gateway_dependency_up',
    help: 'Whether each dependency is reachable now (1) or not (0): redis and nats as their connections know it, chain by the health probe',
    labelNames: ['dependency'],
    registers,
    collect() {
      setDependencyGauge(this, read()?.dependencies);
    },
  });
  return {
    leaderChanged: (leading) => changes.inc({ change: leading ? 'elected' : 'lost' }),
  };
}
