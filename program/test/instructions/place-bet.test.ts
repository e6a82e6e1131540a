/**
 * place_bet (signed and delegated) at addresses independent of the global counter, the
 * one-open-bet rule within one slot, and the vault's cover of every open bet.
 */
import { describe, expect, it } from 'vitest';
import { betPda } from '../../index.ts';
import { expectRefused } from '../refusal.ts';
import { START_TIME } from '../svm.ts';
import { STAKE, PRICE, UP, DOWN, FUNDS, WIN, BET_SIZE, STATE_SIZE, ready } from './support.ts';

describe('place_bet', () => {
  it('opens the bet at ["bet", bettor, 0] at the Clock time, moves the stake, records payer, seq and liability', async () => {
    const { chain, bettor } = await ready();
    const vaultBefore = chain.tokenBalance(chain.vault);
    const { id, seq, bet } = await chain.placeBet(bettor, DOWN, STAKE, PRICE);
    expect({ id, seq }).toEqual({ id: 1n, seq: 0n });
    expect(bet.equals(betPda(bettor.key.publicKey, 0n)[0])).toBe(true);
    const decoded = chain.readBet(bet);
    expect(decoded.bettor.equals(bettor.key.publicKey)).toBe(true);
    expect(decoded.payer.equals(chain.relayer.publicKey)).toBe(true);
    expect(decoded).toMatchObject({
      id: 1n,
      seq: 0n,
      side: DOWN,
      amount: STAKE,
      entry_price: PRICE,
      exit_price: 0n,
      bet_time: START_TIME,
      expire_time: START_TIME + 15n,
      status: 0,
    });
    expect(chain.readAccount(bet)!.data.length).toBe(Number(BET_SIZE));
    const state = chain.readBettorState(bettor);
    expect(state).toMatchObject({ open_bet_id: 1n, has_open_bet: 1, bet_count: 1n, reclaimed: 0n });
    expect(state.payer.equals(chain.relayer.publicKey)).toBe(true);
    expect(chain.readAccount(bettor.state)!.data.length).toBe(Number(STATE_SIZE));
    expect(chain.tokenBalance(bettor.token)).toBe(FUNDS - STAKE);
    expect(chain.tokenBalance(chain.vault)).toBe(vaultBefore + STAKE);
    expect(chain.readConfig()).toMatchObject({ counter: 1n, next_bet_id: 2n, open_liability: WIN });
  });

  it("place_bet_delegated: the relayer moves the stake as delegate with the bettor's signed intent; the bettor does not sign the transaction", async () => {
    const { chain, bettor } = await ready();
    chain.approveRelayer(bettor, STAKE);
    chain.mustSend(await chain.delegatedIxs(bettor, { side: UP, amount: STAKE, entryPrice: PRICE }), [chain.relayer]);
    expect(chain.readBet(chain.betAddress(bettor, 0n))).toMatchObject({ id: 1n, seq: 0n, amount: STAKE, status: 0 });
    expect(chain.tokenBalance(bettor.token)).toBe(FUNDS - STAKE);
  });

  it('a pre-funded bet or bettor address does not block the bet', async () => {
    const { chain, bettor } = await ready();
    const bet = chain.betAddress(bettor, 0n);
    chain.airdrop(bet, 1_000n);
    chain.airdrop(bettor.state, 5_000_000n);
    await chain.placeBet(bettor, UP, STAKE, PRICE);
    expect(chain.readBet(bet).status).toBe(0);
    expect(chain.readAccount(bet)!.lamports).toBe(chain.svm.minimumBalanceForRentExemption(BET_SIZE));
    expect(chain.readAccount(bettor.state)!.lamports).toBe(5_000_000n);
  });

  it('one open bet per bettor, also for two transactions in the same slot', async () => {
    const { chain, bettor } = await ready();
    const slot = chain.svm.getClock().slot;
    const first = await chain.placeBetIx(bettor, { side: UP, amount: STAKE, entryPrice: PRICE }, { seq: 0n });
    const again = await chain.placeBetIx(bettor, { side: DOWN, amount: STAKE, entryPrice: PRICE }, { seq: 0n });
    chain.mustSend([first], [chain.relayer, bettor.key]);
    expectRefused(chain.send([again], [chain.relayer, bettor.key]), 'OpenBetExists');
    const next = await chain.placeBetIx(bettor, { side: DOWN, amount: STAKE, entryPrice: PRICE }, { seq: 1n });
    expectRefused(chain.send([next], [chain.relayer, bettor.key]), 'OpenBetExists');
    expect(chain.svm.getClock().slot).toBe(slot);
    expect(chain.tokenBalance(bettor.token)).toBe(FUNDS - STAKE);
    expect(chain.readAccount(chain.betAddress(bettor, 1n))).toBeNull();
  });

  it('two bettors in one slot: addresses built before either lands, sent in any order or in one transaction', async () => {
    const { chain, bettor } = await ready();
    const other = chain.newBettor();
    const third = chain.newBettor();
    const fourth = chain.newBettor();
    const slot = chain.svm.getClock().slot;
    const args = { side: UP, amount: STAKE, entryPrice: PRICE };
    const a = await chain.placeBetIx(bettor, args);
    const b = await chain.placeBetIx(other, args);
    chain.mustSend([b], [chain.relayer, other.key]);
    chain.mustSend([a], [chain.relayer, bettor.key]);
    const both = [await chain.placeBetIx(third, args), await chain.placeBetIx(fourth, args)];
    chain.mustSend(both, [chain.relayer, third.key, fourth.key]);
    expect(chain.svm.getClock().slot).toBe(slot);
    expect(chain.readBet(chain.betAddress(other, 0n)).id).toBe(1n);
    expect(chain.readBet(chain.betAddress(bettor, 0n)).id).toBe(2n);
    expect(chain.readBet(chain.betAddress(third, 0n)).id).toBe(3n);
    expect(chain.readBet(chain.betAddress(fourth, 0n)).id).toBe(4n);
    expect(chain.readConfig()).toMatchObject({ counter: 4n, next_bet_id: 5n, open_liability: 4n * WIN });
  });
});

describe('solvency: the vault covers every open bet', () => {
  it('a bet is refused when vault + stake would not cover the open payouts; the exact cover is accepted', async () => {
    // Vault 0: the first bet brings its stake, which covers STAKE of its 1.3 x STAKE payout.
    const exact = WIN - STAKE;
    const { chain, bettor } = await ready(exact - 1n);
    expectRefused(
      chain.send([await chain.placeBetIx(bettor, { side: UP, amount: STAKE, entryPrice: PRICE })], [chain.relayer, bettor.key]),
      'VaultCannotCover',
    );
    chain.mintTo(chain.vault, 1n);
    await chain.placeBet(bettor, UP, STAKE, PRICE);
    expect(chain.tokenBalance(chain.vault)).toBe(WIN);
    expect(chain.readConfig().open_liability).toBe(WIN);
    const other = chain.newBettor();
    expectRefused(
      chain.send([await chain.placeBetIx(other, { side: DOWN, amount: STAKE, entryPrice: PRICE })], [chain.relayer, other.key]),
      'VaultCannotCover',
    );
  });
});
