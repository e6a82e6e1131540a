/**
 * Keeps the chain's state bounded (the contract's `reclaim_bet`;
 * docs/architecture.md#reclaiming-settled-bets): when a bet closes, the bettor's earlier settled
 * bets are reclaimed and their rent goes back to whoever paid it. The bettor's latest bet stays on
 * chain, so `lastBet` of docs/gateway-api.md#state still reads it; everything else a client may ask
 * about an older bet is in the bet history.
 *
 * Reclaims go in seq order, from the bettor state's `reclaimed` count up, and stop at a bet that
 * cannot go yet (still open, or carried by a live series whose actor may read it again): so
 * `reclaimed` = r always means "the bettor's bets below seq r are gone", which is how every
 * node's chain mirror learns of reclaims made elsewhere (a closed account sends no notification).
 * A reclaim that fails is read again from the chain before anything else: an account another node
 * reclaimed meanwhile is simply gone, and the sweep goes on; any other failure is logged and the
 * next close of the same bettor tries again from there.
 *
 * @example
 *   const reclaimer = new BetReclaimer({ chain, isLive: (id) => bets.has(id), log });
 *   reclaimer.closed({ id: '42', bettor });   // on each committed bet_closed
 */
import { PublicKey } from '@solana/web3.js';
import type { ChainPort } from '../../../adapters/chain/port.ts';
import type { Logger } from '../../../kernel/log.ts';

/** Most reclaims one sweep sends (a bettor's backlog after an outage goes over several closes). */
const MAX_PER_SWEEP = 16n;

export interface ReclaimerDeps {
  chain: Pick<ChainPort, 'readBettorState' | 'readBet' | 'rereadBet' | 'reclaimBet'>;
  /** whether a live bet series of this process carries the bet `betId` */
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
      .catch((err: unknown) =>
        this.deps.log.warn(
          { bettor: bet.bettor, err: err instanceof Error ? err.message : err },
          'reclaim of settled bets failed; the next close of this bettor tries again',
        ),
      )
      .finally(() => this.busy.delete(bet.bettor));
  }

  /** Bets reclaimed so far. */
  get count(): number {
    return this.reclaimed;
  }

  private async sweep(bettor: string): Promise<void> {
    const { chain, isLive, log } = this.deps;
    const state = await chain.readBettorState(new PublicKey(bettor));
    if (!state || state.betCount < 2n) return;
    const latest = state.betCount - 1n;
    const until = state.reclaimed + MAX_PER_SWEEP < latest ? state.reclaimed + MAX_PER_SWEEP : latest;
    for (let seq = state.reclaimed; seq < until; seq++) {
      const ref = { bettor, seq };
      // not held: read the chain itself before going past it
      const old = (await chain.readBet(ref)) ?? (await chain.rereadBet(ref));
      if (!old) continue; // gone already
      if (old.status === 0 || isLive(old.id.toString())) return;
      try {
        if (await chain.reclaimBet(ref)) this.reclaimed++;
      } catch (err) {
        if ((await chain.rereadBet(ref)) !== null) throw err;
        log.debug({ bettor, seq: seq.toString() }, 'settled bet already reclaimed (by another node)');
      }
    }
  }
}
