/**
 * Settling a bet: close_bet for every outcome, the tie replay in one transaction, and
 * refund_expired.
 */
import { createCloseAccountInstruction, createTransferInstruction } from '@solana/spl-token';
import { Keypair } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { tokenAccountAt } from '../forge.ts';
import { expectRefused } from '../refusal.ts';
import { DEFAULT_PARAMS } from '../svm.ts';
import { STAKE, PRICE, UP, DOWN, FUNDS, WIN, ready } from './support.ts';

describe('close_bet outcomes', () => {
  const cases = [
    { name: 'UP wins on exit > entry', side: UP, exit: PRICE + 1n, status: 1, paid: WIN },
    { name: 'UP loses on exit < entry', side: UP, exit: PRICE - 1n, status: 2, paid: 0n },
    { name: 'DOWN wins on exit < entry', side: DOWN, exit: PRICE - 1n, status: 1, paid: WIN },
    { name: 'DOWN loses on exit > entry', side: DOWN, exit: PRICE + 1n, status: 2, paid: 0n },
    { name: 'UP tie refunds exactly the stake', side: UP, exit: PRICE, status: 3, paid: STAKE },
    { name: 'DOWN tie refunds exactly the stake', side: DOWN, exit: PRICE, status: 3, paid: STAKE },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const { chain, bettor } = await ready();
      const { id, bet } = await chain.placeBet(bettor, c.side, STAKE, PRICE);
      const vaultAfterStake = chain.tokenBalance(chain.vault);
      chain.setTime(chain.readBet(bet).expire_time);
      chain.mustSend([await chain.closeBetIx(bet, bettor, c.exit)], [chain.relayer]);
      expect(chain.readBet(bet)).toMatchObject({ status: c.status, exit_price: c.exit, amount: STAKE });
      expect(chain.tokenBalance(bettor.token)).toBe(FUNDS - STAKE + c.paid);
      expect(chain.tokenBalance(chain.vault)).toBe(vaultAfterStake - c.paid);
      expect(chain.readBettorState(bettor)).toMatchObject({ has_open_bet: 0, open_bet_id: 0n, bet_count: 1n });
      expect(chain.readConfig().open_liability).toBe(0n);
      // The bettor may bet again once the bet is closed: next seq, next global id.
      const next = await chain.placeBet(bettor, c.side, STAKE, PRICE);
      expect({ id: next.id, seq: next.seq }).toEqual({ id: id + 1n, seq: 1n });
    });
  }

  it('a win pays floor(stake x multiplier_bps / 10000)', async () => {
    const { chain, bettor } = await ready();
    const odd = 123_456_789n;
    const { bet } = await chain.placeBet(bettor, UP, odd, PRICE);
    expect(chain.readConfig().open_liability).toBe((odd * 13_000n) / 10_000n);
    chain.setTime(chain.now() + 20n);
    chain.mustSend([await chain.closeBetIx(bet, bettor, PRICE + 100n)], [chain.relayer]);
    expect(chain.tokenBalance(bettor.token)).toBe(FUNDS - odd + (odd * 13_000n) / 10_000n);
    expect(chain.readConfig().open_liability).toBe(0n);
  });

  it('a lost bet settles although the bettor closed its token account; a win then needs a live account', async () => {
    const { chain, bettor } = await ready();
    const lost = await chain.placeBet(bettor, UP, STAKE, PRICE);
    const sink = tokenAccountAt(chain, Keypair.generate().publicKey, chain.mint);
    chain.mustSend(
      [
        createTransferInstruction(bettor.token, sink, bettor.key.publicKey, FUNDS - STAKE),
        createCloseAccountInstruction(bettor.token, bettor.key.publicKey, bettor.key.publicKey),
      ],
      [bettor.key],
    );
    expect(chain.readAccount(bettor.token)).toBeNull();
    chain.setTime(chain.now() + 15n);
    const sent = chain.mustSend([await chain.closeBetIx(lost.bet, bettor, PRICE - 1n)], [chain.relayer]);
    expect(chain.readBet(lost.bet).status).toBe(2);
    expect(chain.events(sent)[0]?.data).toMatchObject({ status: 2, payout: 0n });

    // The next bet, from a fresh token account, wins: paying needs the bettor's live token account.
    const fresh = tokenAccountAt(chain, bettor.key.publicKey, chain.mint, STAKE);
    const won = await chain.placeBetIx(bettor, { side: UP, amount: STAKE, entryPrice: PRICE }, { accounts: { bettorToken: fresh } });
    chain.mustSend([won], [chain.relayer, bettor.key]);
    chain.setTime(chain.now() + 15n);
    const bet = chain.betAddress(bettor, 1n);
    expectRefused(chain.send([await chain.closeBetIx(bet, bettor, PRICE + 1n)], [chain.relayer]), 'InvalidAccountOwner');
    chain.mustSend([await chain.closeBetIx(bet, bettor, PRICE + 1n, { bettorToken: fresh })], [chain.relayer]);
    expect(chain.tokenBalance(fresh)).toBe(WIN);
  });
});

describe('tie replay', () => {
  it('close_bet + place_bet for the same bettor in one transaction: the new bet at seq + 1', async () => {
    const { chain, bettor } = await ready();
    const { id, seq, bet } = await chain.placeBet(bettor, UP, STAKE, PRICE);
    chain.setTime(chain.now() + 15n);
    const close = await chain.closeBetIx(bet, bettor, PRICE);
    const place = await chain.placeBetIx(bettor, { side: UP, amount: STAKE, entryPrice: PRICE }, { seq: seq + 1n });
    chain.mustSend([close, place], [chain.relayer, bettor.key]);
    expect(chain.readBet(bet).status).toBe(3);
    const replay = chain.betAddress(bettor, seq + 1n);
    expect(chain.readBet(replay)).toMatchObject({ id: id + 1n, seq: seq + 1n, status: 0, amount: STAKE, bet_time: chain.now() });
    expect(chain.readBettorState(bettor)).toMatchObject({ has_open_bet: 1, open_bet_id: id + 1n, bet_count: 2n });
    expect(chain.tokenBalance(bettor.token)).toBe(FUNDS - STAKE);
    expect(chain.readConfig().open_liability).toBe(WIN);
  });
});

describe('refund_expired', () => {
  it('anyone refunds exactly the stake from expire_time + refund_after_seconds, even while paused', async () => {
    const { chain, bettor } = await ready();
    const { bet } = await chain.placeBet(bettor, UP, STAKE, PRICE);
    const vault = chain.tokenBalance(chain.vault);
    chain.mustSend([await chain.setPausedIx(1)], [chain.admin]);
    const stranger = Keypair.generate();
    chain.airdrop(stranger.publicKey, 1_000_000_000n);
    const refundAt = chain.readBet(bet).expire_time + DEFAULT_PARAMS.refundAfterSeconds;
    chain.setTime(refundAt - 1n);
    expectRefused(chain.send([await chain.refundExpiredIx(bet, bettor)], [stranger]), 'RefundNotYetAllowed');
    chain.setTime(refundAt);
    chain.mustSend([await chain.refundExpiredIx(bet, bettor)], [stranger]);
    expect(chain.readBet(bet)).toMatchObject({ status: 3, exit_price: PRICE, amount: STAKE });
    expect(chain.tokenBalance(bettor.token)).toBe(FUNDS);
    expect(chain.tokenBalance(chain.vault)).toBe(vault - STAKE);
    expect(chain.readBettorState(bettor)).toMatchObject({ has_open_bet: 0, open_bet_id: 0n });
    expect(chain.readConfig().open_liability).toBe(0n);
    expectRefused(chain.send([await chain.refundExpiredIx(bet, bettor)], [stranger]), 'BetAlreadyClosed');
    expectRefused(chain.send([await chain.closeBetIx(bet, bettor, PRICE + 1n)], [chain.relayer]), 'BetAlreadyClosed');
    expect(chain.tokenBalance(bettor.token)).toBe(FUNDS);
  });
});
