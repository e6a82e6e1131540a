/**
 * Which gateway runs the bet actors and the settlement clock (docs/architecture.md#the-leader: one
 * elected leader, holding a lease with a fencing token, runs the bet actors and the settler). With
 * Redis, every gateway tries for the lease every third of its TTL; the holder renews it and runs
 * the leader's role, the others stay followers (they serve reads, sockets and bets). A leader that
 * cannot renew for two thirds of the TTL stops its role before the lease can pass to another node.
 * Without Redis the process is alone on its DATA_DIR and is the leader from the start.
 *
 * A leader also knows, on the monotonic clock, until when its lease surely holds: from the moment
 * it sent the request that took or renewed it, plus the TTL less a margin. `holds()` turns false
 * the moment that passes — a process paused (SIGSTOP) past its lease and resumed acts as a
 * follower at once, before its next renewal attempt tells it so — and every settlement write
 * checks it right before it is sent.
 *
 * @example
 *   const leadership = startLeaseLeadership({ lease, role, log });
 *   leadership.isLeader(); // true on one node
 *   await leadership.stop(); // stops the role, releases the lease
 */
import type { FenceRecord, LeaderLease } from '../../../adapters/store/lease/port.ts';
import type { Logger } from '../../../kernel/log.ts';
import { LeaseHold } from './lease-hold.ts';

/**
 * How long a leader keeps its lease while its role cannot be started again from the store (the
 * store still failing over): the restart is tried at every round meanwhile; past this the node
 * gives the lease up, so that a node whose trouble is its own does not keep the others from leading.
 */
export const RESTART_RETRY_MS = 60_000;

/** What the leader runs; started with the lease's fence, stopped when the lease is lost or on shutdown. */
export interface LeaderRole {
  start(fence: number): Promise<void>;
  stop(): Promise<void>;
}

/** Several roles run together, started in order and stopped in reverse. */
export function allRoles(...roles: Array<LeaderRole | null>): LeaderRole {
  const present = roles.filter((r): r is LeaderRole => r !== null);
  return {
    async start(fence) {
      for (const r of present) await r.start(fence);
    },
    async stop() {
      for (const r of [...present].reverse()) await r.stop();
    },
  };
}

/** This node's standing. */
export interface Leadership {
  /** leading, and the lease surely still held (monotonic clock) */
  isLeader(): boolean;
  /** the same as `isLeader`: what a settlement write checks right before it is sent */
  holds(): boolean;
  /** the fencing token of the lease held, null on a follower */
  fence(): number | null;
  /** stops the role (when leading) and releases the lease */
  stop(): Promise<void>;
  /**
   * While leading: the role is stopped and started again under the same fence (its next round),
   * rehydrating from the store — after the store may have lost writes the role holds in memory
   * (a Redis failover: docs/operations.md#redis-with-sentinel).
   */
  refresh(why: string): void;
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Told each time this node becomes the leader (true) or stops being it (false): `gateway_leader_changes_total`. */
export type LeadershipChanged = (leading: boolean) => void;

/** A lone gateway (no Redis): the leader at once, fence 0. */
export async function soleLeadership(role: LeaderRole, hold: LeaseHold = new LeaseHold(), changed?: LeadershipChanged): Promise<Leadership> {
  hold.forever();
  await role.start(0);
  changed?.(true);
  let restarting: Promise<void> = Promise.resolve();
  return {
    isLeader: () => true,
    holds: () => hold.holds(),
    fence: () => 0,
    stop: async () => {
      await restarting;
      changed?.(false);
      await role.stop();
    },
    refresh: () => {
      restarting = restarting.then(() => role.start(0)).catch(() => undefined);
    },
  };
}

/** The part of the TTL a leader counts on: what is left for clock drift and for Redis applying the TTL after we asked. */
const leaseMarginMs = (ttlMs: number): number => Math.max(50, Math.floor(ttlMs / 10));

/** Options of the lease loop. */
export interface LeaseLeadershipOptions {
  lease: LeaderLease;
  /** the highest fence used: a fence taken below it (a lease store that went backwards) is given up at once */
  fences?: FenceRecord;
  role: LeaderRole;
  log: Logger;
  now?: () => number;
  /** until when the lease surely holds; read by whatever must not act without it [a new one on performance.now] */
  hold?: LeaseHold;
  changed?: LeadershipChanged;
  /** how long the lease is kept while restarts of the role fail [RESTART_RETRY_MS] */
  restartRetryMs?: number;
}

/** Starts competing for the lease; the first attempt runs at once. */
export function startLeaseLeadership(options: LeaseLeadershipOptions): Leadership {
  const { lease, role, log } = options;
  const now = options.now ?? Date.now;
  const hold = options.hold ?? new LeaseHold();
  const ttl = lease.options.ttlMs;
  const counted = ttl - leaseMarginMs(ttl);
  const restartRetryMs = options.restartRetryMs ?? RESTART_RETRY_MS;
  let fence: number | null = null;
  let lastRenewed = 0;
  const holds = () => fence !== null && hold.holds();
  let busy: Promise<void> | null = null;
  let stopped = false;
  let refreshFor: string | null = null;
  /** a restart of the role under way: it runs beside the rounds, so renewals go on meanwhile */
  let restarting: Promise<void> | null = null;
  /** when restarts began failing in a row (now()), null while none failed */
  let restartFailingSince: number | null = null;
  /** why the lease is to be given up at the next round (restarts failed too long) */
  let giveUpFor: string | null = null;

  /** Stops the role once a restart under way has finished (never both at once). */
  const stopRole = async () => {
    await restarting;
    await role.stop().catch((err: unknown) => log.error({ err: message(err) }, 'stopping the leader role failed'));
  };

  const depose = async (why: string) => {
    const was = fence;
    fence = null;
    hold.lost();
    restartFailingSince = null;
    giveUpFor = null;
    options.changed?.(false);
    log.warn({ fence: was, why }, 'leadership lost: stopping the bet actors and the settler');
    await stopRole();
  };

  const round = async () => {
    if (fence !== null && (hold.isStale() || giveUpFor !== null)) {
      // a newer leader acted with a higher fence (docs/architecture.md#the-leader): give the lease up, so
      // that a node may lead again with a fence above it, rather than renew a lease it may not act under;
      // the same when this node's role could not be restarted for RESTART_RETRY_MS
      await depose(giveUpFor ?? 'a newer leader used a higher fence');
      await lease.release().catch((err: unknown) => log.warn({ err: message(err) }, 'lease not released; it expires by its TTL'));
      return;
    }
    if (fence !== null) {
      const asked = hold.now();
      try {
        if (await lease.renew()) {
          lastRenewed = now();
          hold.heldFrom(asked, counted);
          // not awaited: a restart that waits on a store failing over must not hold the renewals back
          if (refreshFor !== null && restarting === null) {
            const held = fence;
            restarting = restart(held, refreshFor).finally(() => (restarting = null));
          }
        } else await depose('the lease is held by another node');
      } catch (err) {
        if (now() - lastRenewed >= (ttl * 2) / 3) await depose(`the lease could not be renewed: ${message(err)}`);
      }
      return;
    }
    let got: number | null;
    const asked = hold.now();
    try {
      got = await lease.acquire();
    } catch (err) {
      log.debug({ err: message(err) }, 'lease not reachable; still a follower');
      return;
    }
    if (got === null || stopped) return;
    // a new role rehydrates from the store anyway
    refreshFor = null;
    if (options.fences && !(await options.fences.use(got).catch(() => false))) {
      log.error({ fence: got, highest: await options.fences.highest().catch(() => null) }, 'lease taken with a fence below the highest used: given up');
      await lease.release().catch(() => undefined);
      return;
    }
    fence = got;
    lastRenewed = now();
    hold.lost();
    hold.heldFrom(asked, counted);
    log.info({ fence, node: lease.options.node, ttlMs: ttl }, `elected leader (fence ${got}): running the bet actors and the settler`);
    options.changed?.(true);
    try {
      await role.start(got);
    } catch (err) {
      log.error({ err: message(err), fence: got }, 'starting the leader role failed; giving the lease up');
      fence = null;
      hold.lost();
      options.changed?.(false);
      await role.stop().catch(() => undefined);
      await lease.release().catch(() => undefined);
    }
  };

  // the lease renewed under `held`: the role starts over from the store; a restart that fails is
  // tried again at the next rounds, the lease kept, for RESTART_RETRY_MS
  const restart = async (held: number, why: string) => {
    refreshFor = null;
    log.warn({ fence: held, why }, 'restarting the bet actors and the settler from the store');
    try {
      await role.start(held);
      if (restartFailingSince !== null) log.info({ fence: held }, 'leader role restarted after failed attempts');
      restartFailingSince = null;
    } catch (err) {
      await role.stop().catch(() => undefined);
      if (fence !== held) return; // deposed meanwhile
      restartFailingSince ??= now();
      if (now() - restartFailingSince < restartRetryMs) {
        refreshFor = why;
        log.warn({ fence: held, err: message(err) }, 'restarting the leader role failed; the lease is kept and the restart tried again at the next round');
        return;
      }
      giveUpFor = `restarting the leader role failed for ${restartRetryMs} ms: ${message(err)}`; // at the next round
    }
  };

  const tick = () => {
    if (busy || stopped) return;
    busy = round().finally(() => {
      busy = null;
    });
  };
  tick();
  const timer = setInterval(tick, Math.max(50, Math.floor(ttl / 3)));
  timer.unref();

  return {
    isLeader: holds,
    holds,
    fence: () => fence,
    refresh(why) {
      if (fence === null) return;
      refreshFor = why;
      tick();
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await busy;
      if (fence === null) return;
      fence = null;
      hold.lost();
      options.changed?.(false);
      await stopRole();
      await lease.release().catch((err: unknown) => log.warn({ err: message(err) }, 'lease not released; it expires by its TTL'));
    },
  };
}
