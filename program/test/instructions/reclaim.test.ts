/**
 * reclaim_bet and close_bettor: rent back to the payer, the bettor state re-created afterwards.
 */
import { Keypair } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { STAKE, PRICE, UP, DOWN, BET_SIZE, ready } from './support.ts';

describe('reclaim_bet and close_bettor', () => {
  it('reclaim_bet closes a settled bet: every lamport to bet.payer, the address back to the System Program', async () => {
    const { chain, bettor } = await ready();
    const { bet } = await chain.placeBet(bettor, UP, STAKE, PRICE);
    chain.setTime(chain.now() + 15n);
    chain.mustSend([await chain.closeBetIx(bet, bettor, PRICE - 1n)], [chain.relayer]);
    const rent = chain.lamportsOf(bet);
    expect(rent).toBe(chain.svm.minimumBalanceForRentExemption(BET_SIZE));
    const before = chain.lamportsOf(chain.relayer.publicKey);
    chain.mustSend([await chain.reclaimBetIx(bet, bettor)], [chain.relayer]);
    expect(chain.lamportsOf(chain.relayer.publicKey)).toBe(before + rent - 5_000n);
    expect(chain.readAccount(bet)).toBeNull();
    expect(chain.readBettorState(bettor)).toMatchObject({ bet_count: 1n, reclaimed: 1n });
  });

  it('the rent of a bet goes back to the relayer that paid it, after a relayer change', async () => {
    const { chain, bettor } = await ready();
    const { bet } = await chain.placeBet(bettor, UP, STAKE, PRICE);
    chain.setTime(chain.now() + 15n);
    chain.mustSend([await chain.closeBetIx(bet, bettor, PRICE)], [chain.relayer]);
    const next = Keypair.generate();
    chain.airdrop(next.publicKey, 1_000_000_000n);
    chain.mustSend([await chain.setRelayerIx(next.publicKey)], [chain.admin]);
    const old = chain.lamportsOf(chain.relayer.publicKey);
    const rent = chain.lamportsOf(bet);
    chain.mustSend([await chain.reclaimBetIx(bet, bettor, { relayer: next.publicKey })], [next]);
    expect(chain.lamportsOf(chain.relayer.publicKey)).toBe(old + rent);
  });

  it('close_bettor closes an idle state; the bettor bets again from seq 0 and the state is created anew', async () => {
    const { chain, bettor } = await ready();
    const bets = [];
    for (let i = 0; i < 2; i++) {
      const placed = await chain.placeBet(bettor, UP, STAKE, PRICE);
      chain.setTime(chain.now() + 15n);
      chain.mustSend([await chain.closeBetIx(placed.bet, bettor, PRICE - 1n)], [chain.relayer]);
      bets.push(placed);
    }
    for (const { bet } of bets) chain.mustSend([await chain.reclaimBetIx(bet, bettor)], [chain.relayer]);
    expect(chain.readBettorState(bettor)).toMatchObject({ bet_count: 2n, reclaimed: 2n, has_open_bet: 0 });
    const rent = chain.lamportsOf(bettor.state);
    const before = chain.lamportsOf(chain.relayer.publicKey);
    chain.mustSend([await chain.closeBettorIx(bettor)], [chain.relayer]);
    expect(chain.readAccount(bettor.state)).toBeNull();
    expect(chain.lamportsOf(chain.relayer.publicKey)).toBe(before + rent - 5_000n);

    const again = await chain.placeBet(bettor, DOWN, STAKE, PRICE);
    expect({ id: again.id, seq: again.seq }).toEqual({ id: 3n, seq: 0n });
    expect(again.bet.equals(bets[0]!.bet)).toBe(true);
    expect(chain.readBettorState(bettor)).toMatchObject({ bet_count: 1n, reclaimed: 0n, has_open_bet: 1, open_bet_id: 3n });
    expect(chain.readBet(again.bet)).toMatchObject({ id: 3n, seq: 0n, side: DOWN, status: 0 });
  });
});
