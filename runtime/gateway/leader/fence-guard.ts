/**
 * The last check before the leader acts on a bet (docs/architecture.md#the-leader: fences that never
 * go backwards): the fence this node's role runs under is recorded as the highest used, unless a
 * newer leader recorded a higher one. Then this node is stale (it was paused, or cut off, and came
 * back): its lease hold is dropped at once, so nothing of it settles or commits any more, the
 * close is not sent, and the leadership loop gives the lease up at its next round.
 *
 * @example
 *   const guard = fenceGuard({ fences, fence: () => role.fence(), hold, log });
 *   await guard('close_bet'); // throws NotLeading when stale
 */
import { NotLeading } from '../../../adapters/chain/port.ts';
import type { FenceRecord } from '../../../adapters/store/lease/port.ts';
import type { Logger } from '../../../kernel/log.ts';
import type { LeaseHold } from './lease-hold.ts';

/** What the guard reads. */
export interface FenceGuardDeps {
  fences: FenceRecord;
  /** the fence the leader's role runs under; null when it does not run */
  fence: () => number | null;
  hold: LeaseHold;
  log: Logger;
}

/** A check to await right before a settlement write; throws `NotLeading` when the fence is stale or the role is not running. */
export function fenceGuard(d: FenceGuardDeps): (what: string) => Promise<void> {
  return async (what) => {
    const fence = d.fence();
    if (fence === null) throw new NotLeading(what);
    if (await d.fences.use(fence)) return;
    d.hold.stale();
    d.log.error(
      { fence, highest: await d.fences.highest().catch(() => null), what },
      `${what} refused: a newer leader used a higher fence; this node stops acting`,
    );
    throw new NotLeading(what);
  };
}
