/**
 * The admin's instructions: set_paused, the roles (set_relayer, the two-step admin change),
 * and withdraw.
 */
import { Keypair, PublicKey } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { tokenAccountAt } from '../forge.ts';
import { expectRefused } from '../refusal.ts';
import { DEFAULT_PARAMS } from '../svm.ts';
import { STAKE, PRICE, UP, WIN, ready } from './support.ts';

describe('set_paused', () => {
  it('the admin pauses and resumes; only new bets stop: close, refund, reclaim, close_bettor and withdraw run while paused', async () => {
    const { chain, bettor } = await ready();
    const other = chain.newBettor();
    const { bet } = await chain.placeBet(bettor, UP, STAKE, PRICE);
    const stale = await chain.placeBet(other, UP, STAKE, PRICE);
    chain.mustSend([await chain.setPausedIx(1)], [chain.admin]);
    expect(chain.readConfig().paused).toBe(1);
    chain.setTime(chain.now() + 15n);
    chain.mustSend([await chain.closeBetIx(bet, bettor, PRICE + 1n)], [chain.relayer]);
    chain.setTime(chain.now() + DEFAULT_PARAMS.refundAfterSeconds);
    chain.mustSend([await chain.refundExpiredIx(stale.bet, other)], [chain.relayer]);
    chain.mustSend([await chain.reclaimBetIx(bet, bettor)], [chain.relayer]);
    chain.mustSend([await chain.closeBettorIx(bettor)], [chain.relayer]);
    chain.mustSend([await chain.withdrawIx(1n, tokenAccountAt(chain, chain.admin.publicKey, chain.mint))], [chain.admin]);
    chain.mustSend([await chain.setPausedIx(0)], [chain.admin]);
    expect(chain.readConfig().paused).toBe(0);
    await chain.placeBet(bettor, UP, STAKE, PRICE);
  });

  it('a paused contract refuses place_bet and place_bet_delegated with Paused', async () => {
    const { chain, bettor } = await ready();
    chain.approveRelayer(bettor, STAKE);
    chain.mustSend([await chain.setPausedIx(1)], [chain.admin]);
    expectRefused(chain.send([await chain.placeBetIx(bettor, { side: UP, amount: STAKE, entryPrice: PRICE })], [chain.relayer, bettor.key]), 'Paused');
    expectRefused(chain.send(await chain.delegatedIxs(bettor, { side: UP, amount: STAKE, entryPrice: PRICE }), [chain.relayer]), 'Paused');
  });
});

describe('roles', () => {
  it('set_relayer: the new relayer places and closes bets, the old one no longer can', async () => {
    const { chain, bettor } = await ready();
    const next = Keypair.generate();
    chain.airdrop(next.publicKey, 10_000_000_000n);
    chain.mustSend([await chain.setRelayerIx(next.publicKey)], [chain.admin]);
    expect(chain.readConfig().relayer.equals(next.publicKey)).toBe(true);
    const args = { side: UP, amount: STAKE, entryPrice: PRICE };
    expectRefused(chain.send([await chain.placeBetIx(bettor, args)], [chain.relayer, bettor.key]), 'Unauthorized');
    chain.mustSend([await chain.placeBetIx(bettor, args, { accounts: { relayer: next.publicKey } })], [next, bettor.key]);
    const bet = chain.betAddress(bettor, 0n);
    expect(chain.readBet(bet).payer.equals(next.publicKey)).toBe(true);
    chain.setTime(chain.now() + 15n);
    expectRefused(chain.send([await chain.closeBetIx(bet, bettor, PRICE)], [chain.relayer]), 'Unauthorized');
    chain.mustSend([await chain.closeBetIx(bet, bettor, PRICE, { relayer: next.publicKey })], [next]);
  });

  it('propose_admin + accept_admin hand the admin role over; proposing the zero key cancels', async () => {
    const { chain } = await ready();
    const successor = Keypair.generate();
    chain.airdrop(successor.publicKey, 1_000_000_000n);
    chain.mustSend([await chain.proposeAdminIx(successor.publicKey)], [chain.admin]);
    expect(chain.readConfig().pending_admin.equals(successor.publicKey)).toBe(true);
    expect(chain.readConfig().admin.equals(chain.admin.publicKey)).toBe(true);
    chain.mustSend([await chain.proposeAdminIx(PublicKey.default)], [chain.admin]);
    expect(chain.readConfig().pending_admin.equals(PublicKey.default)).toBe(true);
    expectRefused(chain.send([await chain.acceptAdminIx(successor.publicKey)], [successor]), 'NoPendingAdmin');

    chain.mustSend([await chain.proposeAdminIx(successor.publicKey)], [chain.admin]);
    chain.mustSend([await chain.acceptAdminIx(successor.publicKey)], [successor]);
    const config = chain.readConfig();
    expect(config.admin.equals(successor.publicKey)).toBe(true);
    expect(config.pending_admin.equals(PublicKey.default)).toBe(true);
    expectRefused(chain.send([await chain.setPausedIx(1)], [chain.admin]), 'Unauthorized');
    chain.mustSend([await chain.setPausedIx(1, { admin: successor.publicKey })], [successor]);
    expect(chain.readConfig().paused).toBe(1);
  });
});

describe('withdraw', () => {
  it('the admin withdraws down to exactly the open liability, not one unit more', async () => {
    const { chain, bettor } = await ready(10_000_000_000n);
    await chain.placeBet(bettor, UP, STAKE, PRICE);
    const destination = tokenAccountAt(chain, Keypair.generate().publicKey, chain.mint);
    const vault = chain.tokenBalance(chain.vault);
    const free = vault - WIN;
    expectRefused(chain.send([await chain.withdrawIx(free + 1n, destination)], [chain.admin]), 'WithdrawBelowLiability');
    chain.mustSend([await chain.withdrawIx(free, destination)], [chain.admin]);
    expect(chain.tokenBalance(destination)).toBe(free);
    expect(chain.tokenBalance(chain.vault)).toBe(WIN);
    expectRefused(chain.send([await chain.withdrawIx(1n, destination)], [chain.admin]), 'WithdrawBelowLiability');
  });
});
