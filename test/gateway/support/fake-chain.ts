/**
 * A small in-process stand-in for the updown program, behind the bet effects: bets with
 * statuses, the contract's outcome rule (docs/gateway-api.md#bet-status), close and close+replace
 * transactions that are counted, and effects that are idempotent the way the real ones must
 * be (read the bet first; a closed bet answers `already_closed` or its replacement).
 * Failures and "the transaction landed but the answer never came" can be scripted.
 */

import type { BetEffects, PriceExit } from '../../../runtime/gateway/bets/effects.ts';
import type { Side } from '../../../kernel/domain.ts';

export interface FakeBet {
  id: bigint;
  bettor: string;
  seq: bigint;
  side: Side;
  amount: bigint;
  entryPrice: bigint;
  exitPrice: bigint;
  expireTime: number;
  status: 0 | 1 | 2 | 3;
  /** the tied bet this one replaced */
  replaces: bigint | null;
}

type Fault = 'fail' | 'fail_after_tx' | 'hang_after_tx' | 'hang';

/** The chain, its transaction log, and the effects a runtime uses against it. */
export class FakeChain {
  readonly bets = new Map<bigint, FakeBet>();
  /** bet ids in the order close_bet ran on them (one entry per close that changed the chain) */
  readonly closes: bigint[] = [];
  readonly effectCalls: Array<{ effect: keyof BetEffects; betId: bigint }> = [];
  private nextId = 100n;
  private readonly faults: Array<{ effect: keyof BetEffects; fault: Fault }> = [];
  /** exit price answered for a bet; default: its entry price (a tie) */
  exitFor: (bet: FakeBet) => PriceExit = (bet) => ({ kind: 'price', value: bet.entryPrice });
  /** entry price of a replacement bet */
  latestPrice = 15_000_001_000n;

  place(bet: Omit<FakeBet, 'exitPrice' | 'status' | 'replaces'>): FakeBet {
    const stored: FakeBet = { ...bet, exitPrice: 0n, status: 0, replaces: null };
    this.bets.set(bet.id, stored);
    return stored;
  }

  /** The next call of `effect` misbehaves as told. */
  inject(effect: keyof BetEffects, fault: Fault): void {
    this.faults.push({ effect, fault });
  }

  private faultFor(effect: keyof BetEffects): Fault | null {
    const i = this.faults.findIndex((f) => f.effect === effect);
    if (i < 0) return null;
    const [found] = this.faults.splice(i, 1);
    return found?.fault ?? null;
  }

  private bet(id: bigint): FakeBet {
    const bet = this.bets.get(id);
    if (!bet) throw new Error(`no bet ${id}`);
    return bet;
  }

  private close(bet: FakeBet, exitPrice: bigint): void {
    bet.exitPrice = exitPrice;
    bet.status = exitPrice === bet.entryPrice ? 3 : exitPrice > bet.entryPrice === (bet.side === 'UP') ? 1 : 2;
    this.closes.push(bet.id);
  }

  private static never<T>(): Promise<T> {
    return new Promise<T>(() => undefined);
  }

  readonly effects: BetEffects = {
    priceExit: async ({ betId }) => {
      this.effectCalls.push({ effect: 'priceExit', betId });
      const fault = this.faultFor('priceExit');
      if (fault === 'hang') return FakeChain.never();
      if (fault === 'fail') throw new Error('price history unavailable');
      return this.exitFor(this.bet(betId));
    },
    closeOnChain: async ({ betId, exitPrice }) => {
      this.effectCalls.push({ effect: 'closeOnChain', betId });
      const fault = this.faultFor('closeOnChain');
      if (fault === 'hang') return FakeChain.never();
      if (fault === 'fail') throw new Error('node unreachable');
      const bet = this.bet(betId);
      if (bet.status !== 0) return { kind: 'already_closed', status: bet.status, exitPrice: bet.exitPrice, signature: `close-${betId}` };
      this.close(bet, exitPrice);
      if (fault === 'fail_after_tx') throw new Error('confirmation timed out');
      if (fault === 'hang_after_tx') return FakeChain.never();
      return { kind: 'closed', status: bet.status, signature: `close-${betId}` };
    },
    closeAndReplace: async ({ betId, ref, exitPrice, side, amount }) => {
      this.effectCalls.push({ effect: 'closeAndReplace', betId });
      const fault = this.faultFor('closeAndReplace');
      if (fault === 'hang') return FakeChain.never();
      if (fault === 'fail') throw new Error('node unreachable');
      const bet = this.bet(betId);
      if (bet.status !== 0) {
        const replacement = [...this.bets.values()].find((b) => b.replaces === betId);
        if (replacement) {
          return {
            kind: 'replaced',
            signature: `replace-${betId}`,
            next: { id: replacement.id, seq: replacement.seq, entryPrice: replacement.entryPrice, expireTime: replacement.expireTime },
          };
        }
        return { kind: 'already_closed', status: bet.status, exitPrice: bet.exitPrice, signature: `close-${betId}` };
      }
      // one transaction: close_bet then place_bet for the same bettor, side and amount
      this.close(bet, exitPrice);
      const next: FakeBet = {
        id: this.nextId++,
        bettor: ref.bettor,
        seq: bet.seq + 1n,
        side,
        amount,
        entryPrice: this.latestPrice,
        exitPrice: 0n,
        expireTime: bet.expireTime + 15,
        status: 0,
        replaces: betId,
      };
      this.bets.set(next.id, next);
      if (fault === 'fail_after_tx') throw new Error('confirmation timed out');
      if (fault === 'hang_after_tx') return FakeChain.never();
      return {
        kind: 'replaced',
        signature: `replace-${betId}`,
        next: { id: next.id, seq: next.seq, entryPrice: next.entryPrice, expireTime: next.expireTime },
      };
    },
  };

  /** How many times close_bet changed bet `id` (must never exceed 1). */
  closesOf(id: bigint): number {
    return this.closes.filter((c) => c === id).length;
  }
}
