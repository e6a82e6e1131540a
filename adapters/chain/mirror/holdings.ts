/**
 * What the chain mirror holds in memory (docs/architecture.md#the-chain-mirror): the program's
 * accounts (config, bets, bettor states) and the mint's token balances, each with the slot it is
 * known at (an older value never replaces a newer one), and the callers waiting for an account to
 * be held as of a slot.
 */
import type { PublicKey } from '@solana/web3.js';
import type { Logger } from '../../../kernel/log.ts';
import { accountKind, betAddressName, bettorAddressName, decodeBet, decodeBettorState, decodeConfig } from '../codec.ts';
import type { BetAccount, BettorState, ContractConfig } from '../port.ts';
import { bytesOf, type Known, type RawAccount } from './wire.ts';

/**
 * The mirror's values, by address: a bettor state by its own address too (`bettorAddressName`
 * finds it from the bettor), so that the slot it is known at is the one its entry carries, not
 * a second map's (docs/operations.md#memory).
 */
export class MirrorHoldings {
  cfg: Known<ContractConfig | null> | null = null;
  readonly bets = new Map<string, Known<BetAccount>>();
  readonly bettors = new Map<string, Known<BettorState>>();
  readonly tokens = new Map<string, Known<bigint>>();
  /** the highest slot any notification was seen at */
  slotSeen = 0;
  /** counts every change of a held value (a cache made from held values is current while it is unchanged) */
  changes = 0;
  /** slot the config account is known at, by address (bets, bettor states and token accounts carry their own) */
  private readonly programSlots = new Map<string, number>();
  /** callers waiting for one account's write of a slot, by address */
  private readonly writeWaiters = new Map<string, Array<{ slot: number; resolve: () => void }>>();
  private readonly programName: string;

  constructor(
    programId: PublicKey,
    private readonly log: Logger,
  ) {
    this.programName = programId.toBase58();
  }

  /** Takes one program account into the mirror (unless what is held is newer); returns its kind. */
  apply(address: string, slot: number, account: RawAccount): 'config' | 'bet' | 'bettor' | null {
    const data = bytesOf(account);
    const kind = account.owner === this.programName && account.lamports > 0 ? accountKind(data) : null;
    try {
      if (kind === 'config') {
        if (!this.cfg || this.cfg.slot <= slot) this.cfg = { slot, value: decodeConfig(data) };
        this.noteSlot(address, slot);
      } else if (kind === 'bet') {
        const held = this.bets.get(address);
        if (!held || held.slot <= slot) {
          const bet = decodeBet(data);
          if (!held) betAddressName.prime({ bettor: bet.bettor, seq: bet.seq }, address); // the program creates bets at their PDA only
          this.bets.set(address, { slot, value: bet });
        }
      } else if (kind === 'bettor') {
        const state = decodeBettorState(data);
        const held = this.bettors.get(address);
        if (!held) bettorAddressName.prime(state.bettor, address);
        if (!held || held.slot <= slot) {
          this.bettors.set(address, { slot, value: state });
          if (held) this.forgetReclaimed(held.value.reclaimed, state);
        }
      }
    } catch (err) {
      this.log.error({ address, err: (err as Error).message }, 'program account that does not decode; left out of the mirror');
      return null;
    }
    if (kind !== null) {
      this.changes++;
      this.wake(address);
    }
    return kind;
  }

  setToken(address: string, slot: number, amount: bigint): void {
    const held = this.tokens.get(address);
    if (!held || held.slot <= slot) this.tokens.set(address, { slot, value: amount });
    this.changes++;
    this.wake(address);
  }

  /**
   * A closed account sends no notification (programSubscribe follows accounts the program owns),
   * so a reclaim is seen in the bettor state instead: reclaims go in seq order
   * (docs/architecture.md#reclaiming-settled-bets), so `reclaimed` = r means the bettor's settled
   * bets below seq r are gone, whichever node reclaimed them.
   */
  private forgetReclaimed(before: bigint, state: BettorState): void {
    for (let seq = before; seq < state.reclaimed; seq++) {
      const address = betAddressName({ bettor: state.bettor, seq });
      if (this.bets.get(address)?.value.status !== 0) this.bets.delete(address);
      this.changes++;
    }
  }

  private noteSlot(address: string, slot: number): void {
    if ((this.programSlots.get(address) ?? -1) < slot) this.programSlots.set(address, slot);
  }

  saw(slot: number): void {
    if (slot > this.slotSeen) this.slotSeen = slot;
  }

  /** The slot the account at `address` is known at (-1 when not held). */
  private heldSlot(address: string): number {
    return this.bets.get(address)?.slot ?? this.tokens.get(address)?.slot ?? this.bettors.get(address)?.slot ?? this.programSlots.get(address) ?? -1;
  }

  private wake(address: string): void {
    const waiting = this.writeWaiters.get(address);
    if (!waiting) return;
    const held = this.heldSlot(address);
    const ready = waiting.filter((w) => w.slot <= held);
    if (ready.length === 0) return;
    const left = waiting.filter((w) => w.slot > held);
    if (left.length === 0) this.writeWaiters.delete(address);
    else this.writeWaiters.set(address, left);
    for (const w of ready) w.resolve();
  }

  /** Resolves once the mirror holds the account at `address` as of `slot` or later, or after `timeoutMs` (false then). */
  heldAt(address: string, slot: number, timeoutMs: number): Promise<boolean> {
    if (this.heldSlot(address) >= slot) return Promise.resolve(true);
    return new Promise((resolve) => {
      // a waiter woken in time stops its timer: nothing of it outlives the wait
      const waiter = {
        slot,
        resolve: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      const list = this.writeWaiters.get(address) ?? [];
      list.push(waiter);
      this.writeWaiters.set(address, list);
      const timer = setTimeout(() => {
        const now = this.writeWaiters.get(address)?.filter((w) => w !== waiter) ?? [];
        if (now.length === 0) this.writeWaiters.delete(address);
        else this.writeWaiters.set(address, now);
        resolve(this.heldSlot(address) >= slot);
      }, timeoutMs).unref();
    });
  }
}
