/**
 * Each instruction's effect on accounts, lamports and tokens: initialize, place_bet (signed and
 * delegated) at addresses independent of the global counter, close_bet for every outcome,
 * refund_expired, reclaim_bet and close_bettor (rent back to the payer, state re-created),
 * set_paused, set_relayer, the two-step admin change, withdraw and the vault's cover of the open
 * liability, the one-open-bet rule within one slot, and the tie replay in one transaction.
 */
import { createCloseAccountInstruction, createTransferInstruction } from '@solana/spl-token';
import { Keypair, PublicKey } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { betPda } from '../index.ts';
import { tokenAccountAt } from './forge.ts';
import { expectRefused } from './refusal.ts';
import { BetChain, DEFAULT_PARAMS, START_TIME, type Bettor } from './svm.ts';

const STAKE = 2_000_000_000n;
const PRICE = 15_000_000_000n;
const UP = 0;
const DOWN = 1;
const FUNDS = 100_000_000_000n;
const WIN = (STAKE * 13_000n) / 10_000n;
const BET_SIZE = 131n;
const STATE_SIZE = 98n;

async function ready(vaultFunds?: bigint): Promise<{ chain: BetChain; bettor: Bettor }> {
  const chain = new BetChain();
  await chain.setUp(DEFAULT_PARAMS, vaultFunds);
  return { chain, bettor: chain.newBettor(FUNDS) };
}

describe('initialize', () => {
  it('records roles, mint, vault, limits; no pending admin, zero liability, counter 0, next id 1; the authority pays', async () => {
    const chain = new BetChain();
    chain.createMintAndVault();
    const before = chain.lamportsOf(chain.authority.publicKey);
    chain.mustSend([await chain.initializeIx()], [chain.authority]);
    const config = chain.readConfig();
    expect(config.admin.equals(chain.admin.publicKey)).toBe(true);
    expect(config.pending_admin.equals(PublicKey.default)).toBe(true);
    expect(config.relayer.equals(chain.relayer.publicKey)).toBe(true);
    expect(config.mint.equals(chain.mint)).toBe(true);
    expect(config.vault.equals(chain.vault)).toBe(true);
    expect(config).toMatchObject({
      counter: 0n,
      next_bet_id: 1n,
      min_amount: DEFAULT_PARAMS.minAmount,
      max_amount: DEFAULT_PARAMS.maxAmount,
      multiplier_bps: DEFAULT_PARAMS.multiplierBps,
      expiry_seconds: DEFAULT_PARAMS.expirySeconds,
      refund_after_seconds: DEFAULT_PARAMS.refundAfterSeconds,
      open_liability: 0n,
      paused: 0,
    });
    const account = chain.readAccount(chain.config)!;
    expect(account.data.length).toBe(234);
    const rent = chain.svm.minimumBalanceForRentExemption(234n);
    expect(account.lamports).toBe(rent);
    expect(before - chain.lamportsOf(chain.authority.publicKey)).toBe(rent + 5_000n);
  });
});

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

  it('place_bet_delegated: the relayer moves the stake as delegate; the bettor does not sign', async () => {
    const { chain, bettor } = await ready();
    chain.approveRelayer(bettor, STAKE);
    const ix = await chain.placeBetIx(bettor, { side: UP, amount: STAKE, entryPrice: PRICE }, { delegated: true });
    chain.mustSend([ix], [chain.relayer]);
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
    expectRefused(chain.send([await chain.placeBetIx(bettor, { side: UP, amount: STAKE, entryPrice: PRICE }, { delegated: true })], [chain.relayer]), 'Paused');
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
