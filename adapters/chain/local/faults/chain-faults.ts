/**
 * A fault profile at work on one local chain (docs/operations.md#a-fault-profile): the parts
 * the profile switches on, sharing one seeded draw and one set of counters, logged every few
 * seconds. Parts left off cost nothing: their hooks answer as the chain does without a profile.
 */
import type { Logger } from '../../../../kernel/log.ts';
import type { Throttle } from '../http.ts';
import type { LocalNode } from '../node.ts';
import { logCounters, zeroCounters, type FaultCounters } from './counters.ts';
import type { FaultHooks } from './hooks.ts';
import { RequestBursts } from './http-bursts.ts';
import { faultProfileText, type FaultProfile } from './profile.ts';
import { disturbPubSub, type PubSubSockets } from './pubsub-faults.ts';
import { freshSeed, seededRandom } from './rng.ts';
import { Rollbacks } from './rollback.ts';
import { StatusLag } from './status-lag.ts';
import { TransactionFaults } from './transactions.ts';

/** how often the counters are logged */
const REPORT_EVERY_MS = 5_000;
/** mixed into the seed of the fork draws */
const FORK_SEED = 0x5bd1e995;

/** A running profile. */
export interface ChainFaults extends FaultHooks {
  /** the profile, its seed filled in */
  readonly profile: FaultProfile & { seed: number };
  /** the 429 bursts for the HTTP front, or null */
  readonly throttle: Throttle | null;
  /** a copy of the counters */
  counters(): FaultCounters;
  /** starts cutting and silencing the PubSub server's sockets (when the profile says so) */
  disturbPubSub(sockets: PubSubSockets): void;
  stop(): void;
}

/** Starts `profile` on `node`. */
export function startChainFaults(given: FaultProfile, node: LocalNode, log: Logger): ChainFaults {
  const profile = { ...given, seed: given.seed ?? freshSeed() };
  const counters = zeroCounters();
  const random = seededRandom(profile.seed);
  // forks are drawn per slot, on their own sequence, so that the drops of a run repeat whatever the slots' timing
  const rollbacks = profile.rollback > 0 ? new Rollbacks(node, profile.rollback, seededRandom(profile.seed ^ FORK_SEED), counters, log) : null;
  const txs = profile.drop > 0 || profile.landDelaySlots > 0 || rollbacks ? new TransactionFaults(node, profile, random, counters, log, rollbacks) : null;
  const lag = profile.statusLagMs > 0 ? new StatusLag(node, profile.statusLagMs, counters) : null;
  const stops: Array<() => void> = [logCounters(counters, log, REPORT_EVERY_MS)];
  log.info({ faults: faultProfileText(profile) }, 'chain fault profile on');
  return {
    profile,
    throttle: profile.burst429 ? new RequestBursts(profile.burst429, counters) : null,
    send: (wire, opts) => (txs ? txs.send(wire, opts) : node.submit(wire, opts)),
    statusShown: (signature) => lag?.shown(signature) ?? true,
    holdSignature: (signature, deliver) => {
      if (lag) return lag.hold(signature, deliver);
      deliver();
      return () => undefined;
    },
    watchRollbacks: (cb) => rollbacks?.watch(cb) ?? (() => undefined),
    counters: () => ({ ...counters }),
    disturbPubSub: (sockets) => {
      stops.push(disturbPubSub(profile, sockets, counters));
    },
    stop: () => {
      for (const stop of stops.splice(0)) stop();
      txs?.stop();
      lag?.stop();
      rollbacks?.stop();
    },
  };
}
