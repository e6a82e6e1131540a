/**
 * The gateway's settlement phase (docs/architecture.md#the-leader): the live bets of this node
 * (an intake on a follower; the leader's series and settler while it leads), the listeners of
 * their commits in order, the reclaimer, and the leadership that starts and stops the leader's
 * part. Everything is made before anything runs, so no part reads another that is assigned later.
 *
 * @example
 *   const settlement = await startSettlement({ config, stores, chain, relay, deliver, metrics, log });
 *   settlement.liveBets().open(input);
 *   await settlement.stop();
 */
import type { RpcChain } from '../adapters/chain/rpc-chain/index.ts';
import { heldBettorName } from '../adapters/chain/codec.ts';
import { createNatsKvFenceRecord, createNatsKvLease, openLeaderBucket } from '../adapters/store/lease/nats-kv.ts';
import type { FenceRecord, LeaderLease } from '../adapters/store/lease/port.ts';
import { createRedisFenceRecord, createRedisLease } from '../adapters/store/lease/redis.ts';
import type { Sequenced } from '../adapters/store/event-log/port.ts';
import type { Logger } from '../kernel/log.ts';
import type { BetEmittedEvent } from '../machines/bet-events.ts';
import { CommitListeners } from '../runtime/gateway/bets/commit-listeners.ts';
import { LiveBets, type LiveBetsOptions } from '../runtime/gateway/bets/live-bets.ts';
import type { OutboxRelay } from '../runtime/gateway/events/outbox-relay.ts';
import type { SharedStream } from '../runtime/gateway/events/shared-stream.ts';
import { fenceGuard } from '../runtime/gateway/leader/fence-guard.ts';
import type { GatewayEvent } from '../runtime/gateway/events/schemas.ts';
import { betRecords } from '../runtime/gateway/history/records.ts';
import { LeaseHold } from '../runtime/gateway/leader/lease-hold.ts';
import { allRoles, soleLeadership, startLeaseLeadership, type Leadership } from '../runtime/gateway/leader/leadership.ts';
import { SettlementRole } from '../runtime/gateway/leader/settlement-role.ts';
import type { GatewayMetrics } from '../runtime/gateway/metrics.ts';
import { settlementEffects } from '../runtime/gateway/settlement/effects.ts';
import { BetReclaimer } from '../runtime/gateway/settlement/reclaimer.ts';
import { Settler, type ReplayPolicy } from '../runtime/gateway/settlement/settler.ts';
import type { GatewayStores } from './gateway-stores.ts';
import type { GatewayConfig } from './gateway-env.ts';

/** What the phase is built from. */
export interface SettlementPhaseDeps {
  config: GatewayConfig;
  stores: GatewayStores;
  chain: RpcChain;
  /** the shared event stream (with NATS), else null: with Redis too, the leader lease lives in its NATS */
  shared: SharedStream | null;
  /** the shared stream's relay of the outbox (with NATS), else null */
  relay: OutboxRelay<GatewayEvent> | null;
  /** hands committed events to this node's sockets (without NATS; with it the relay does) */
  deliver: (events: ReadonlyArray<Sequenced<BetEmittedEvent>>) => void;
  metrics: GatewayMetrics;
  /** where prices come from, for the evidence (`nats:market.price.solusdt`, `synthetic`, ...) */
  priceSource: string;
  log: Logger;
}

/** The running phase. */
export interface SettlementPhase {
  leadership: Leadership;
  /** the leader's series and settler while this node leads */
  role: SettlementRole;
  /** the live bets of this node: the leader's, or the follower's intake */
  liveBets(): LiveBets;
  policy: ReplayPolicy;
  stop(): Promise<void>;
}

/** The payout multiplier is fixed at initialisation: the last value read serves while the chain is away. */
function multiplierOf(chain: RpcChain): () => Promise<bigint> {
  let known: bigint | null = null;
  return async () => {
    try {
      known = (await chain.readConfig())?.multiplierBps ?? known;
    } catch (err) {
      if (known === null) throw err;
    }
    return known ?? 10_000n;
  };
}

/** A log line for each settlement and replay, with the fence it happened under. */
function logSettlements(log: Logger, fence: () => number | null) {
  return (events: ReadonlyArray<Sequenced<BetEmittedEvent>>): void => {
    for (const event of events) {
      if (event.type === 'bet_closed')
        log.info(
          { betId: event.id, bettor: event.bettor, exitPrice: event.exitPrice, status: event.statusName, seq: event.seq, fence: fence() },
          `bet ${event.id} settled: ${event.statusName}`,
        );
      if (event.type === 'bet_replay')
        log.info(
          { betId: event.id, prevId: event.prevId, replayCount: event.replayCount, seq: event.seq, fence: fence() },
          `tie of bet ${event.prevId} replayed as bet ${event.id}`,
        );
    }
  };
}

/** Events before the outbox's last seq that the relay goes over again after a failover (the stream drops what it already holds). */
const RELAY_REWIND = 200;

/**
 * Redis is another server than before (docs/operations.md#redis-with-sentinel): it may lack the
 * last commits. The relay goes back to before the outbox's tail (new commits reuse lost seqs), and
 * the leader restarts its role from the store: every live series rehydrated, open bets adopted
 * from the chain, each expired bet settled once (the chain refuses a second close).
 */
async function reconcileAfterFailover(d: SettlementPhaseDeps, leadership: Leadership): Promise<void> {
  if (d.relay) {
    const last = await d.stores.eventLog.lastSeq().catch(() => 0);
    d.relay.rewindTo(last - RELAY_REWIND);
  }
  leadership.refresh('redis failed over: the store may have lost its last commits');
}

/** Where the lease and the highest fence used are kept (docs/decisions.md#the-leader-lease-in-nats-kv-when-nats-is-configured), or null for a lone gateway. */
async function leaseOf(d: SettlementPhaseDeps): Promise<{ lease: LeaderLease; fences: FenceRecord; where: string } | null> {
  const { config, stores, shared } = d;
  if (!stores.redis) return null; // alone on its DATA_DIR: the leader for good
  const identity = { node: config.GW_NODE_ID, ttlMs: config.GW_LEASE_TTL_MS };
  if (shared) {
    const bucket = `${shared.name}_LEADER`;
    const kv = await openLeaderBucket(shared.connection, { bucket, replicas: config.GW_EVENT_REPLICAS });
    return { lease: createNatsKvLease(kv, identity), fences: createNatsKvFenceRecord(kv), where: `NATS KV ${bucket}` };
  }
  const key = `${stores.prefix}leader`;
  return {
    lease: createRedisLease(stores.redis, { key, ...identity, durability: config.redis.durability }),
    fences: createRedisFenceRecord(stores.redis, key),
    where: `Redis ${key}`,
  };
}

/** Builds the phase and starts competing for leadership (at once the leader without Redis). */
export async function startSettlement(d: SettlementPhaseDeps): Promise<SettlementPhase> {
  const { config, stores, chain, metrics, log } = d;
  const policy: ReplayPolicy = { replayTies: config.GW_PROFILE === 'B', maxReplays: config.GW_MAX_REPLAYS };
  // a paused leader resumed past its lease sends no close and starts no settlement run, before any renewal tells it so
  const hold = new LeaseHold();
  chain.guardSettlement(() => hold.holds());
  const leasing = await leaseOf(d);
  // checked before every close: the fence of the role (made below) that the effects run under
  const beforeSettling = leasing ? fenceGuard({ fences: leasing.fences, fence: () => role.fence(), hold, log }) : undefined;

  const listeners = new CommitListeners(log);
  const options: LiveBetsOptions = {
    store: stores.snapshots,
    effects: settlementEffects({
      chain,
      history: stores.history,
      keyFor: (address) => stores.keys.get(address),
      now: Date.now,
      ...(beforeSettling ? { beforeSettling } : {}),
    }),
    records: betRecords({ stored: (id) => stores.betHistory.get(id), history: stores.history, source: d.priceSource, multiplierBps: multiplierOf(chain) }),
    publish: listeners.publish,
    log,
    shareName: heldBettorName,
  };
  // a bet placed while this node does not lead is committed by the intake and taken over by the leader
  const intake = LiveBets.intake(options);
  const role = new SettlementRole({
    actors: async () => {
      // the leader's commits wait while its lease is not surely held (a paused leader resumed)
      const bets = await LiveBets.boot({ ...options, mayCommit: () => hold.holds() });
      for (const id of bets.seriesIds()) {
        const summary = bets.summaryOf(id);
        if (summary) metrics.betExpires(summary.betId, summary.expireTime);
      }
      return bets;
    },
    settler: (bets) =>
      new Settler({ chain, bets, snapshots: stores.snapshots, policy, log, adoptFromStore: stores.kind === 'redis', mayAct: () => hold.holds() }),
    intervalMs: config.SMART_SETTLE_INTERVAL_MS,
  });
  const liveBets = (): LiveBets => role.actors() ?? intake;
  const reclaimer = config.GW_RECLAIM_BETS === 'on' ? new BetReclaimer({ chain, isLive: (id) => liveBets().has(id), log }) : null;

  // in this order: what happened is logged and counted before it is acted on and announced
  listeners.add(
    'log',
    logSettlements(log, () => role.fence()),
  );
  listeners.add('metrics', (events) => metrics.betEvents(events));
  if (reclaimer) listeners.add('reclaimer', (events) => events.forEach((e) => e.type === 'bet_closed' && reclaimer.closed(e)));
  listeners.add('event stream', d.relay ? () => d.relay?.kick() : d.deliver);

  // the relay starts first and stops last: the leader's final commits are still relayed
  const leaderRole = allRoles(d.relay, role);
  if (leasing) log.info({ lease: leasing.where, ttlMs: config.GW_LEASE_TTL_MS }, `leader lease in ${leasing.where}`);
  const leadership = leasing
    ? startLeaseLeadership({ lease: leasing.lease, fences: leasing.fences, role: leaderRole, log, hold, changed: metrics.leaderChanged })
    : await soleLeadership(leaderRole, hold, metrics.leaderChanged);
  stores.onRedisChange(
    () =>
      void reconcileAfterFailover(d, leadership).catch((err: unknown) =>
        log.error({ err: err instanceof Error ? err.message : String(err) }, 'reconciliation after a redis failover failed'),
      ),
  );
  return {
    leadership,
    role,
    liveBets,
    policy,
    async stop() {
      await leadership.stop();
      await intake.stop();
    },
  };
}
