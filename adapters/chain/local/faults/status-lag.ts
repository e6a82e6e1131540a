/**
 * The fault profile's status lag (docs/operations.md#a-fault-profile): the RPC node a client
 * asks is behind the one that landed its transaction, so `getSignatureStatuses` answers null
 * for a signature until `statusLagMs` after it landed, and a `signatureSubscribe`
 * notification is held back as long. Account and program notifications are not held: on a
 * cluster they come from other nodes, each lagging its own way.
 */
import type { LocalNode } from '../node.ts';
import type { FaultCounters } from './counters.ts';

/** When each recently landed signature may be shown. */
export class StatusLag {
  /** signature -> when its status may be shown (ms, `now`'s clock), in landing order */
  private readonly shownAt = new Map<string, number>();
  private readonly stopLandings: () => void;

  constructor(
    node: LocalNode,
    private readonly lagMs: number,
    private readonly counters: FaultCounters,
    private readonly now: () => number = () => performance.now(),
  ) {
    // told before the status is published: nobody sees it before it is held
    this.stopLandings = node.events.landings.add(({ signature }) => {
      this.forgetShown();
      this.shownAt.set(signature, this.now() + this.lagMs);
    });
  }

  /** Whether `signature`'s status may be answered now (counts a held answer). */
  shown(signature: string): boolean {
    if (this.heldFor(signature) === 0) return true;
    this.counters.heldStatuses++;
    return false;
  }

  /** Calls `deliver` once `signature`'s status may be shown (at once when it may be now); returns a cancel. */
  hold(signature: string, deliver: () => void): () => void {
    const wait = this.heldFor(signature);
    if (wait === 0) {
      deliver();
      return () => undefined;
    }
    this.counters.heldNotifications++;
    const timer = setTimeout(deliver, wait);
    return () => clearTimeout(timer);
  }

  stop(): void {
    this.stopLandings();
    this.shownAt.clear();
  }

  /** ms until `signature` may be shown; 0 for one shown already or not landed in the lag. */
  private heldFor(signature: string): number {
    this.forgetShown();
    const at = this.shownAt.get(signature);
    return at === undefined ? 0 : Math.max(0, Math.ceil(at - this.now()));
  }

  /** Drops the signatures whose lag is over (the oldest come first). */
  private forgetShown(): void {
    const now = this.now();
    for (const [signature, at] of this.shownAt) {
      if (at > now) return;
      this.shownAt.delete(signature);
    }
  }
}
