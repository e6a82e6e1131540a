/**
 * The gateway's Prometheus metrics (`GET /metrics`), in a registry of its own with the
 * `gateway_` prefix. Counters are moved by the runtime as things happen (bets placed, events
 * of settled bets, HTTP answers, chain RPC calls); gauges that describe the present (sockets,
 * live actors by state, price age) are read when scraped, and so are the standing gauges alerts
 * read (`standing-metrics.ts`: bets past expiry, leader, relay lag, dependencies). No label
 * carries a bet id or an address.
 *
 * @example
 *   const metrics = createGatewayMetrics();
 *   metrics.betEvents(events);            // bet_open / bet_closed / bet_replay
 *   metrics.observeLive({ actors: bets, sockets: () => stream.connections, lastTickMs: () => prices.current()?.ts });
 *   await metrics.registry.metrics();
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { LandingReport } from '../../adapters/chain/port.ts';
import type { BetEmittedEvent } from '../../machines/bet-events.ts';
import { LATENCY_BUCKETS, serviceRegistry } from '../metrics.ts';
import type { LiveBetStats } from './bets/live-bets.ts';
import { standingMetrics, type GatewayStanding } from './standing-metrics.ts';
import { stateName } from './bets/state-name.ts';

/** What the scrape-time gauges read from the running gateway (the standing ones: `standing-metrics.ts`). */
export interface LiveGatewayState extends GatewayStanding {
  /** open WebSocket connections */
  sockets: () => number;
  /** sockets replaying what they missed now */
  resuming?: () => number;
  /** ts (unix ms) of the newest SOL tick; undefined before the first */
  lastTickMs: () => number | undefined;
  /** live bet series and the runtime's failure counters */
  actors: {
    seriesIds(): string[];
    summaryOf(seriesId: string): { value: unknown; expireTime: number } | undefined;
    stats(): LiveBetStats;
  };
  /** the chain adapter's landing engine, when it has one */
  landing?: () => LandingReport;
}

/** Metrics of one gateway. */
export interface GatewayMetrics {
  registry: Registry;
  /** a bet was placed on chain */
  betPlaced(): void;
  /** a placement was refused before anything was sent for it: too many in flight (docs/gateway-api.md#errors) */
  betShed(): void;
  /** a price tick was refused for its signature (docs/decisions.md#signed-prices) */
  priceTickRefused(reason: 'forged' | 'unsigned'): void;
  /** events committed by bet series (settlements, replays; expiries are remembered for the lag) */
  betEvents(events: readonly BetEmittedEvent[]): void;
  /** a bet known to be open (rehydrated at boot): its expiry, for the settlement lag */
  betExpires(betId: string, expireTimeSeconds: number): void;
  /** an HTTP answer: the route pattern (never the raw path) and its status */
  httpAnswered(route: string, status: number): void;
  /** a chain JSON-RPC call */
  rpc(method: string, seconds: number, failed: boolean): void;
  /** a chain PubSub subscribe or unsubscribe request */
  pubsubRequest(method: string): void;
  /** connects the scrape-time gauges to the running gateway */
  observeLive(state: LiveGatewayState): void;
  /** this node became the leader (true) or stopped being it (false) */
  leaderChanged(leading: boolean): void;
  /** what resuming sockets do (docs/operations.md#a-reconnect-herd) */
  resumes: {
    /** a resuming socket caught up and went live, `ms` after it opened */
    resumed(ms: number): void;
    /** a connect with since was answered 503 (too many resuming) */
    refused(): void;
    /** a resuming socket was closed with 1013 and a retry hint */
    closedForRetry(): void;
    /** an upgrade was answered 503: the gateway holds its most sockets */
    full(): void;
  };
}

/** Creates the gateway's registry and metrics. */
export function createGatewayMetrics(): GatewayMetrics {
  const registry = serviceRegistry();
  const registers = [registry];
  const placed = new Counter({ name: 'gateway_bets_placed_total', help: 'Bets placed on chain by this gateway', registers });
  const shed = new Counter({
    name: 'gateway_bets_shed_total',
    help: 'POST /api/bet answered 503 with Retry-After before anything was sent: GW_MAX_PLACING placements were in flight',
    registers,
  });
  const refusedTicks = new Counter({
    name: 'gateway_price_ticks_refused_total',
    help: 'Price ticks refused before the price history, by reason (forged: a signature that does not verify; unsigned: no signature while the contract requires signed prices)',
    labelNames: ['reason'],
    registers,
  });
  const settled = new Counter({
    name: 'gateway_bets_settled_total',
    help: 'Bets settled, by outcome (payout_done, house_won, refunded; replayed: a Profile B tie replaced by a new bet)',
    labelNames: ['outcome'],
    registers,
  });
  const lag = new Histogram({
    name: 'gateway_settlement_lag_seconds',
    help: "Time from a bet's expiry to the commit of its close",
    buckets: [0.25, 0.5, 1, 2, 3, 5, 10, 20, 30, 60, 120, 300],
    registers,
  });
  // answers are counted in plain numbers and handed to the counter at each scrape: no label hashing per request
  const answers = new Map<string, Map<number, { count: number; published: number }>>();
  new Counter({
    name: 'gateway_http_requests_total',
    help: 'HTTP requests answered, by route pattern and status',
    labelNames: ['route', 'status'],
    registers,
    collect() {
      for (const [route, byStatus] of answers)
        for (const [status, n] of byStatus) {
          if (n.count > n.published) this.inc({ route, status: String(status) }, n.count - n.published);
          n.published = n.count;
        }
    },
  });
  const answerCount = (route: string, status: number): { count: number; published: number } => {
    let byStatus = answers.get(route);
    if (!byStatus) answers.set(route, (byStatus = new Map()));
    let n = byStatus.get(status);
    if (!n) byStatus.set(status, (n = { count: 0, published: 0 }));
    return n;
  };
  const rpcSeconds = new Histogram({
    name: 'gateway_chain_rpc_seconds',
    help: 'Chain JSON-RPC call latency, by method',
    labelNames: ['method'],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const rpcErrors = new Counter({
    name: 'gateway_chain_rpc_errors_total',
    help: 'Chain JSON-RPC calls that failed or answered an error, by method',
    labelNames: ['method'],
    registers,
  });

  const pubsubRequests = new Counter({
    name: 'gateway_chain_pubsub_requests_total',
    help: 'Chain PubSub subscribe and unsubscribe requests, by method',
    labelNames: ['method'],
    registers,
  });

  let live: LiveGatewayState | null = null;
  new Gauge({
    name: 'gateway_ws_connections',
    help: 'Open WebSocket connections of the event stream',
    registers,
    collect() {
      if (live) this.set(live.sockets());
    },
  });
  new Gauge({
    name: 'gateway_ws_resuming',
    help: 'WebSocket connections replaying what they missed (connected with ?since=, not live yet)',
    registers,
    collect() {
      if (live?.resuming) this.set(live.resuming());
    },
  });
  const resumeSeconds = new Histogram({
    name: 'gateway_ws_resume_seconds',
    help: 'From a connect with ?since= to the socket caught up and live',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
    registers,
  });
  const resumeRefused = new Counter({
    name: 'gateway_ws_resume_refused_total',
    help: 'Connects with ?since= answered 503 because too many sockets were resuming',
    registers,
  });
  const resumeRetryCloses = new Counter({
    name: 'gateway_ws_resume_retry_closes_total',
    help: 'Resuming sockets closed with 1013 and a retry hint (old events could not be read)',
    registers,
  });
  const fullRefused = new Counter({
    name: 'gateway_ws_full_refused_total',
    help: 'WebSocket upgrades answered 503 because the gateway held its most sockets (GW_MAX_SOCKETS)',
    registers,
  });
  new Gauge({
    name: 'gateway_bet_actors',
    help: 'Live bet series by state (dormant: held as a snapshot until its expiry)',
    labelNames: ['state'],
    registers,
    collect() {
      if (!live) return;
      this.reset();
      for (const id of live.actors.seriesIds()) this.inc({ state: stateName(live.actors.summaryOf(id)?.value) });
    },
  });
  // the actor runtime keeps its own counts; the counters follow them at each scrape
  const followActorStat = (name: string, help: string, stat: 'actorFailures' | 'actorRestarts') =>
    followCount(registers, name, help, () => live?.actors.stats()[stat]);
  followActorStat('gateway_bet_actor_failures_total', 'Bet series actors that failed (each is restarted from its last snapshot)', 'actorFailures');
  followActorStat('gateway_bet_actor_restarts_total', 'Bet series actors restarted from their last snapshot after a failure', 'actorRestarts');
  new Gauge({
    name: 'gateway_price_age_seconds',
    help: 'Age of the newest SOL price tick (NaN before the first)',
    registers,
    collect() {
      if (!live) return;
      const ts = live.lastTickMs();
      this.set(ts === undefined ? Number.NaN : Math.max(0, ((live.now ?? Date.now)() - ts) / 1000));
    },
  });

  followLanding(registers, () => live?.landing?.());
  const standing = standingMetrics(registers, () => live);

  // expiry (unix s) of each bet seen open, until its settlement is observed
  const expiries = new Map<string, number>();
  const settledNow = (betId: string, outcome: string) => {
    settled.inc({ outcome });
    const expire = expiries.get(betId);
    expiries.delete(betId);
    if (expire !== undefined) lag.observe(Math.max(0, Date.now() / 1000 - expire));
  };

  return {
    registry,
    betPlaced: () => placed.inc(),
    betShed: () => shed.inc(),
    priceTickRefused: (reason) => refusedTicks.inc({ reason }),
    betEvents(events) {
      for (const e of events) {
        if (e.type === 'bet_open') expiries.set(e.id, e.expireTime);
        else if (e.type === 'bet_closed') settledNow(e.id, e.statusName);
        else if (e.type === 'bet_replay') {
          settledNow(e.prevId, 'replayed');
          expiries.set(e.id, e.expireTime);
        }
      }
    },
    betExpires: (betId, expireTime) => void expiries.set(betId, expireTime),
    httpAnswered: (route, status) => {
      answerCount(route, status).count++;
    },
    pubsubRequest: (method) => pubsubRequests.inc({ method }),
    rpc(method, seconds, failed) {
      rpcSeconds.observe({ method }, seconds);
      if (failed) rpcErrors.inc({ method });
    },
    observeLive(state) {
      live = state;
    },
    leaderChanged: standing.leaderChanged,
    resumes: {
      resumed: (ms) => resumeSeconds.observe(ms / 1000),
      refused: () => resumeRefused.inc(),
      closedForRetry: () => resumeRetryCloses.inc(),
      full: () => fullRefused.inc(),
    },
  };
}

/**
 * The landing engine's counters (docs/operations.md#metrics), followed at each scrape: sends per
 * landed transaction, expiries and re-signs, the landing time of each landed one, the intents
 * waiting now.
 */
function followLanding(registers: Registry[], report: () => LandingReport | undefined): void {
  const follow = (name: string, help: string, stat: 'sends' | 'landed' | 'failed' | 'expired' | 'resigned' | 'priorityFeeLamports') =>
    followCount(registers, name, help, () => report()?.[stat]);
  follow('gateway_tx_sends_total', 'sendTransaction calls: first sends and rebroadcasts of the same bytes', 'sends');
  follow('gateway_tx_landed_total', 'Transactions confirmed', 'landed');
  follow('gateway_tx_failed_total', 'Transactions that failed on chain, were refused, or could not land', 'failed');
  follow('gateway_tx_expired_total', 'Signings whose blockhash expired before they landed', 'expired');
  follow('gateway_tx_resigned_total', 'Intents signed again over a new blockhash after an expiry', 'resigned');
  follow('gateway_tx_priority_fee_lamports_total', 'Priority fees of the landed transactions (unit price x unit limit), lamports', 'priorityFeeLamports');
  let observed = 0;
  new Histogram({
    name: 'gateway_tx_landing_seconds',
    help: 'From the first signing of a transaction to its confirmation',
    buckets: [0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120],
    registers,
    collect() {
      const r = report();
      if (!r) return;
      const fresh = Math.min(r.landed - observed, r.landingMs.length);
      for (const ms of r.landingMs.slice(r.landingMs.length - fresh)) this.observe(ms / 1000);
      observed = r.landed;
    },
  });
  new Gauge({
    name: 'gateway_tx_pending',
    help: 'Transactions sent and not confirmed yet',
    registers,
    collect() {
      const r = report();
      if (r) this.set(r.pending.length);
    },
  });
}

/** A counter that follows a count kept elsewhere (undefined: not known now), moved at each scrape. */
function followCount(registers: Registry[], name: string, help: string, read: () => number | undefined): void {
  let seen = 0;
  new Counter({
    name,
    help,
    registers,
    collect() {
      const n = read();
      if (n === undefined) return;
      if (n > seen) this.inc(n - seen);
      seen = Math.max(seen, n);
    },
  });
}
