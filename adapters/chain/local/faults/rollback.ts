/**
 * The fault profile's rolled-back slots (docs/operations.md#a-fault-profile): on a cluster, what
 * a subscriber at `processed` hears of may belong to a fork that is then abandoned. A share of
 * slots (`rollback`) forks: the first passing send in such a slot is shown to `processed`
 * account and program subscribers as if it had run (the accounts it would write, as simulated),
 * and is then never executed; subscribers at `confirmed` or `finalized` (the gateway's mirror)
 * never hear of it. Its sender sees no status, as with a dropped send, and must resend.
 */
import type { Logger } from '../../../../kernel/log.ts';
import type { AccountImage } from '../journal.ts';
import { Listeners } from '../node-events.ts';
import type { LocalNode } from '../node.ts';
import type { FaultCounters } from './counters.ts';

/** Which slots fork, and who hears of what a fork showed. */
export class Rollbacks {
  /** the current slot forks and has not shown its transaction yet */
  private forking = false;
  private readonly phantoms: Listeners<[slot: number, accounts: AccountImage[]]>;
  private readonly stopSlots: () => void;

  constructor(
    node: LocalNode,
    share: number,
    random: () => number,
    private readonly counters: FaultCounters,
    log: Logger,
  ) {
    this.phantoms = new Listeners('rolled-back transaction', log);
    this.forking = random() < share; // the slot the profile starts in is drawn too
    this.stopSlots = node.events.slots.add(() => {
      this.forking = random() < share;
    });
  }

  /** Whether the current slot still waits for the transaction it shows and abandons. */
  get pending(): boolean {
    return this.forking;
  }

  /** Shows `accounts`, as a transaction in `slot` would leave them, to `processed` subscribers; the slot's fork is used up. */
  show(slot: number, accounts: AccountImage[]): void {
    this.forking = false;
    this.counters.rolledBack++;
    this.phantoms.emit(slot, accounts);
  }

  /** Calls `cb` with what each fork shows; returns an unsubscribe. */
  watch(cb: (slot: number, accounts: AccountImage[]) => void): () => void {
    return this.phantoms.add(cb);
  }

  stop(): void {
    this.stopSlots();
    this.forking = false;
  }
}
