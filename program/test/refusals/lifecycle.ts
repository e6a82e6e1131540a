/**
 * Refusals along a bet's life and the vault's money: one open bet, closing early or twice,
 * refunds before their time, reclaims and bettor closes too soon, and what the vault cannot cover
 * or must keep.
 */
import { expect, it } from 'vitest';
import { tokenAccountAt } from '../forge.ts';
import { DEFAULT_PARAMS } from '../svm.ts';
import { STAKE, PRICE, ready, placeArgs, type Refused } from './support.ts';

/** Registers the tests (inside the refusals describe). */
export function lifecycleRefusals(refused: Refused): void {
  it('OpenBetExists, BetNotExpired, BetAlreadyClosed', async () => {
    const { chain, bettor } = await ready();
    const { bet } = await chain.placeBet(bettor, 0, STAKE, PRICE);
    refused(chain.send([await placeArgs(chain, bettor)], [chain.relayer, bettor.key]), 'OpenBetExists');
    chain.setTime(chain.now() + DEFAULT_PARAMS.expirySeconds - 1n);
    refused(chain.send([await chain.closeBetIx(bet, bettor, PRICE)], [chain.relayer]), 'BetNotExpired');
    chain.setTime(chain.now() + 1n);
    chain.mustSend([await chain.closeBetIx(bet, bettor, PRICE)], [chain.relayer]);
    refused(chain.send([await chain.closeBetIx(bet, bettor, PRICE)], [chain.relayer]), 'BetAlreadyClosed');
  });

  it('VaultInsufficient: a withdrawal larger than the vault', async () => {
    const { chain } = await ready(DEFAULT_PARAMS, 1_000n);
    const destination = tokenAccountAt(chain, chain.admin.publicKey, chain.mint);
    refused(chain.send([await chain.withdrawIx(1_001n, destination)], [chain.admin]), 'VaultInsufficient');
    expect(chain.tokenBalance(chain.vault)).toBe(1_000n);
  });

  it('VaultCannotCover: a bet whose payout the vault (with the stake) cannot cover', async () => {
    const { chain, bettor } = await ready(DEFAULT_PARAMS, 0n);
    refused(chain.send([await placeArgs(chain, bettor)], [chain.relayer, bettor.key]), 'VaultCannotCover');
    expect(chain.tokenBalance(chain.vault)).toBe(0n);
  });

  it("WithdrawBelowLiability: a withdrawal into the open bets' payouts", async () => {
    const { chain, bettor } = await ready(DEFAULT_PARAMS, 1_000_000_000n);
    await chain.placeBet(bettor, 0, STAKE, PRICE);
    const destination = tokenAccountAt(chain, chain.admin.publicKey, chain.mint);
    const free = chain.tokenBalance(chain.vault) - chain.readConfig().open_liability;
    refused(chain.send([await chain.withdrawIx(free + 1n, destination)], [chain.admin]), 'WithdrawBelowLiability');
  });

  it('RefundNotYetAllowed: refund_expired before expire_time + refund_after_seconds', async () => {
    const { chain, bettor } = await ready();
    const { bet } = await chain.placeBet(bettor, 0, STAKE, PRICE);
    chain.setTime(chain.now() + DEFAULT_PARAMS.expirySeconds + DEFAULT_PARAMS.refundAfterSeconds - 1n);
    refused(chain.send([await chain.refundExpiredIx(bet, bettor)], [chain.relayer]), 'RefundNotYetAllowed');
  });

  it('BetStillOpen: reclaim_bet of an open bet', async () => {
    const { chain, bettor } = await ready();
    const { bet } = await chain.placeBet(bettor, 0, STAKE, PRICE);
    refused(chain.send([await chain.reclaimBetIx(bet, bettor)], [chain.relayer]), 'BetStillOpen');
  });

  it('BettorNotIdle: close_bettor with an open bet, or with bet accounts not reclaimed', async () => {
    const { chain, bettor } = await ready();
    const { bet } = await chain.placeBet(bettor, 0, STAKE, PRICE);
    refused(chain.send([await chain.closeBettorIx(bettor)], [chain.relayer]), 'BettorNotIdle');
    chain.setTime(chain.now() + DEFAULT_PARAMS.expirySeconds);
    chain.mustSend([await chain.closeBetIx(bet, bettor, PRICE - 1n)], [chain.relayer]);
    refused(chain.send([await chain.closeBettorIx(bettor)], [chain.relayer]), 'BettorNotIdle');
  });
}
