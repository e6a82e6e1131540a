/**
 * Keeps the chain's state bounded (contract: reclaim_bet): when a bet closes, the bettor's earlier
 * settled bets are reclaimed and their rent goes back to whoever paid it. The bettor's latest bet
 * stays on chain, so `lastBet` of the spec's state still reads it; everything else a client may
 * ask about an older bet is in the bet history. A bet a live chain still carries is left alone
 * (its actor may read it again), and a failed reclaim is only logged: the next close of the same
 * bettor tries again.
 *
 * @example
 *   const reclaimer = new BetReclaimer({ chain, isLive: (id) => bets.has(id), log });
 *   reclaimer.closed({ id: '42', bettor });   // on each committed bet_closed
 */
import { PublicKey } from '@solana/web3.js';
import type { ChainPort } from '../../adapters/chain/port.ts';
import type { Logger } from '../log.ts';

/** How many bets before the latest are looked at on each close (earlier ones were reclaimed by earlier closes). */
const LOOK_BACK = 3n;

export interface ReclaimerDeps {
  chain: Pick<ChainPort, 'readBettorState' | 'readBet' | 'reclaimBet'>;
  /** whether a live bet chain of this process carries the bet `betId` */
  isLive(betId: string): boolean;
  log: Logger;
}

export class BetReclaimer {
  private readonly busy = new Set<string>();
  private reclaimed = 0;

  constructor(private readonly deps: ReclaimerDeps) {}

  /** A bet of `bettor` closed (its final snapshot committed): reclaims the bettor's settled bets before its latest. */
  closed(bet: { id: string; bettor: string }): void {
    if (this.busy.has(bet.bettor)) return; // a sweep of this bettor runs; it sees this close too
    this.busy.add(bet.bettor);
    void this.sweep(bet.bettor)
      .catch((err: unknown) => this.deps.log.warn({ bettor: bet.bettor, err: err instanceof Error ? err.message : err }, 'reclaim of settled bets failed; the next close of this bettor tries again'))
      .finally(() => this.busy.delete(bet.bettor));
  }

  /** Bets reclaimed so far. */
  get count(): number {
    return this.reclaimed;
  }

  private async sweep(bettor: string): Promise<void> {
    const { chain, isLive } = this.deps;
    const state = await chain.readBettorState(new PublicKey(bettor));
    if (!state || state.betCount < 2n) return;
    const latest = state.betCount - 1n;
    const from = latest > LOOK_BACK ? latest - LOOK_BACK : 0n;
    for (let seq = from; seq < latest; seq++) {
      const ref = { bettor, seq };
      const old = await chain.readBet(ref);
      if (!old || old.status === 0 || isLive(old.id.toString())) continue;
      if (await chain.reclaimBet(ref)) this.reclaimed++;
    }
  }
}
