/**
 * What a local node tells the parts around it (docs/architecture.md#the-local-chain): the accounts
 * each committed transaction wrote (subscriptions), each transaction that landed (the fault
 * profile's status lag) and each new slot (its delayed landings). A listener that throws is
 * logged and the others still hear of it: one broken subscriber never stops a commit.
 */
import type { Logger } from '../../../kernel/log.ts';
import type { AccountImage } from './journal.ts';
import type { TxErrorJson } from './tx-errors.ts';

/** A transaction (or airdrop) whose outcome is durable, told before its status is visible. */
export interface Landing {
  signature: string;
  slot: number;
  err: TxErrorJson | null;
}

/** One kind of event and who listens to it. */
export class Listeners<A extends unknown[]> {
  private readonly set = new Set<(...args: A) => void>();

  constructor(
    private readonly what: string,
    private readonly log: Logger,
  ) {}

  /** Adds a listener; returns how to remove it. */
  add(cb: (...args: A) => void): () => void {
    this.set.add(cb);
    return () => this.set.delete(cb);
  }

  emit(...args: A): void {
    for (const cb of this.set) {
      try {
        cb(...args);
      } catch (err) {
        this.log.error({ err }, `${this.what} listener failed`);
      }
    }
  }
}

/** The events of one node. */
export class NodeEvents {
  readonly accounts: Listeners<[slot: number, accounts: AccountImage[]]>;
  readonly landings: Listeners<[landing: Landing]>;
  readonly slots: Listeners<[slot: number]>;

  constructor(log: Logger) {
    this.accounts = new Listeners('account', log);
    this.landings = new Listeners('landing', log);
    this.slots = new Listeners('slot', log);
  }
}
