/**
 * Compute units per instruction and path (from LiteSVM's computeUnitsConsumed), printed for the
 * record and held under a budget well inside the 200,000 default, so a regression shows.
 */
import { describe, expect, it } from 'vitest';
import { BetChain } from './svm.ts';

const STAKE = 1_000_000_000n;
const PRICE = 15_000_000_000n;
const BUDGET = 30_000;

describe('compute units', () => {
  it('every instruction path stays under budget', async () => {
    const chain = new BetChain();
    const cu: Record<string, number> = {};
    cu['initialize'] = (await chain.setUp()).cu;
    cu['set_paused'] = chain.mustSend([await chain.setPausedIx(0)], [chain.admin]).cu;

    const bettor = chain.newBettor();
    const first = await chain.placeBet(bettor, 0, STAKE, PRICE);
    cu['place_bet (first bet: creates bettor PDA)'] = first.sent.cu;
    const settle = async (exit: bigint, label: string): Promise<void> => {
      chain.setTime(chain.now() + 15n);
      const id = chain.readConfig().next_bet_id - 1n;
      cu[label] = chain.mustSend([await chain.closeBetIx(id, bettor, exit)], [chain.relayer]).cu;
    };
    await settle(PRICE + 1n, 'close_bet (win: PDA-signed payout)');
    cu['place_bet (returning bettor)'] = (await chain.placeBet(bettor, 0, STAKE, PRICE)).sent.cu;
    await settle(PRICE - 1n, 'close_bet (loss)');
    await chain.placeBet(bettor, 1, STAKE, PRICE);
    await settle(PRICE, 'close_bet (tie: refund)');

    chain.approveRelayer(bettor, STAKE);
    const id = chain.readConfig().next_bet_id;
    const delegated = await chain.placeBetIx(bettor, { id, side: 0, amount: STAKE, entryPrice: PRICE }, { delegated: true });
    cu['place_bet_delegated'] = chain.mustSend([delegated], [chain.relayer]).cu;
    chain.setTime(chain.now() + 15n);
    const close = await chain.closeBetIx(id, bettor, PRICE);
    const replay = await chain.placeBetIx(bettor, { id: id + 1n, side: 0, amount: STAKE, entryPrice: PRICE });
    cu['close_bet + place_bet (tie replay, one tx)'] = chain.mustSend([close, replay], [chain.relayer, bettor.key]).cu;

    console.table(Object.entries(cu).map(([path, units]) => ({ path, units })));
    for (const [path, units] of Object.entries(cu)) {
      expect(units, path).toBeGreaterThan(0);
      expect(units, path).toBeLessThan(path.includes('one tx') ? 2 * BUDGET : BUDGET);
    }
  });
});
