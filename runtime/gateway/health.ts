/**
 * What the gateway depends on, checked in the background (docs/gateway-api.md#health:
 * DOWN or not ready while a dependency it needs is down): the chain (an RPC round trip every
 * `intervalMs`), Redis when configured (a PING), and the price (a tick no older than 30 s: with
 * prices from NATS, a NATS outage shows here). `/health` is DOWN while the chain or Redis is
 * unreachable; `/ready` also needs a fresh price.
 *
 * @example
 *   const health = startHealthChecks({ node: 'gw-1', chain: () => chain.ping(), redis, lastTickMs: () => prices.current()?.ts });
 *   health.report(); // { status: 'UP', node: 'gw-1', leader: true, checks: { chain: 'UP', redis: 'UP', price: 'UP' } }
 */
import type { RedisClient } from '../../adapters/store/redis/client.ts';
import { PRICE_RULES } from './prices/rules.ts';

export type CheckState = 'UP' | 'DOWN';

/** What is checked and how. */
export interface HealthDeps {
  /** this gateway's node id (GW_NODE_ID) */
  node: string;
  /** one RPC round trip to the chain; rejects when it is unreachable */
  chain: () => Promise<unknown>;
  redis: RedisClient | null;
  /** ts (unix ms) of the newest tick, undefined before the first */
  lastTickMs: () => number | undefined;
  /** whether this node runs the settler (one node today) */
  leader?: () => boolean;
  intervalMs?: number;
  now?: () => number;
}

/** `GET /health` body. */
export interface HealthReport {
  status: CheckState;
  node: string;
  leader: boolean;
  checks: { chain: CheckState; redis?: CheckState; price: CheckState };
}

/** The running checks. */
export interface Health {
  report(): HealthReport;
  /** what `/ready` lacks (empty when ready) */
  missing(): string[];
  stop(): void;
}

const withTimeout = <T>(p: Promise<T>, ms: number): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });

/** Starts probing; the first round runs at once. */
export function startHealthChecks(deps: HealthDeps): Health {
  const intervalMs = deps.intervalMs ?? 1_000;
  const now = deps.now ?? Date.now;
  const state: { chain: CheckState; redis: CheckState } = { chain: 'DOWN', redis: deps.redis ? 'DOWN' : 'UP' };
  let running = false;
  const probe = async () => {
    if (running) return;
    running = true;
    const timeout = Math.max(500, intervalMs);
    const [chain, redis] = await Promise.allSettled([
      withTimeout(deps.chain(), timeout),
      deps.redis ? withTimeout(deps.redis.ping(), timeout) : Promise.resolve('PONG'),
    ]);
    state.chain = chain.status === 'fulfilled' ? 'UP' : 'DOWN';
    state.redis = redis.status === 'fulfilled' ? 'UP' : 'DOWN';
    running = false;
  };
  // probe() settles its checks itself (allSettled): it does not reject
  const probeNow = () => {
    probe().catch(() => {
      running = false;
    });
  };
  probeNow();
  const timer = setInterval(probeNow, intervalMs);
  timer.unref();

  const priceState = (): CheckState => {
    const ts = deps.lastTickMs();
    return ts !== undefined && now() - ts <= PRICE_RULES.maxTickAgeMs ? 'UP' : 'DOWN';
  };

  return {
    report() {
      const checks: HealthReport['checks'] = { chain: state.chain, ...(deps.redis ? { redis: state.redis } : {}), price: priceState() };
      const status: CheckState = checks.chain === 'UP' && (checks.redis ?? 'UP') === 'UP' ? 'UP' : 'DOWN';
      return { status, node: deps.node, leader: deps.leader?.() ?? true, checks };
    },
    missing() {
      const out: string[] = [];
      if (state.chain === 'DOWN') out.push('chain unreachable');
      if (deps.redis && state.redis === 'DOWN') out.push('redis unreachable');
      if (priceState() === 'DOWN') out.push('no SOL price in the last 30 s (price feed)');
      return out;
    },
    stop() {
      clearInterval(timer);
    },
  };
}
