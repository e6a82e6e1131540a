/**
 * Each instruction's effect on accounts and tokens: initialize, place_bet (signed and
 * delegated), close_bet for every outcome (win, loss, tie; UP and DOWN), set_paused, the
 * one-open-bet rule within one slot, and the tie replay (close + place in one transaction).
 */
import { describe, expect, it } from 'vitest';
import { betPda } from '../index.ts';
import { expectRefused } from './refusal.ts';
import { BetChain, DEFAULT_PARAMS, START_TIME, type Bettor } from './svm.ts';

const STAKE = 2_000_000_000n;
const PRICE = 15_000_000_000n;
const UP = 0;
const DOWN = 1;
const FUNDS = 100_000_000_000n;

async function ready(): Promise<{ chain: BetChain; bettor: Bettor }> {
  const chain = new BetChain();
  await chain.setUp();
  return { chain, bettor: chain.newBettor(FUNDS) };
}

describe('initialize', () => {
  it('records roles, mint, vault, limits; counter 0 and next id 1; unpaused', async () => {
    const chain = new BetChain();
    await chain.setUp(DEFAULT_PARAMS, 0n);
    const config = chain.readConfig();
    expect(config.admin.equals(chain.admin.publicKey)).toBe(true);
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
      paused: 0,
    });
    const account = chain.readAccount(chain.config)!;
    expect(account.data.length).toBe(186);
    expect(account.lamports).toBe(chain.svm.minimumBalanceForRentExemption(186n));
  });
});

describe('place_bet', () => {
  it('opens the bet at the Clock time, moves the stake to the vault, records the open bet', async () => {
    const { chain, bettor } = await ready();
    const vaultBefore = chain.tokenBalance(chain.vault);
    const { id } = await chain.placeBet(bettor, DOWN, STAKE, PRICE);
    expect(id).toBe(1n);
    const bet = chain.readBet(id);
    expect(bet.bettor.equals(bettor.key.publicKey)).toBe(true);
    expect(bet).toMatchObject({ id: 1n, side: DOWN, amount: STAKE, entry_price: PRICE, exit_price: 0n, bet_time: START_TIME, expire_time: START_TIME + 15n, status: 0 });
    expect(chain.readAccount(betPda(id)[0])!.data.length).toBe(91);
    expect(chain.readBettorState(bettor)).toMatchObject({ open_bet_id: 1n, has_open_bet: 1, bets_placed: 1n });
    expect(chain.tokenBalance(bettor.token)).toBe(FUNDS - STAKE);
    expect(chain.tokenBalance(chain.vault)).toBe(vaultBefore + STAKE);
    expect(chain.readConfig()).toMatchObject({ counter: 1n, next_bet_id: 2n });
  });

  it('place_bet_delegated: the relayer moves the stake as delegate; the bettor does not sign', async () => {
    const { chain, bettor } = await ready();
    chain.approveRelayer(bettor, STAKE);
    const ix = await chain.placeBetIx(bettor, { id: 1n, side: UP, amount: STAKE, entryPrice: PRICE }, { delegated: true });
    chain.mustSend([ix], [chain.relayer]);
    expect(chain.readBet(1n)).toMatchObject({ amount: STAKE, status: 0 });
    expect(chain.tokenBalance(bettor.token)).toBe(FUNDS - STAKE);
  });

  it('a pre-funded bet or bettor address does not block the bet', async () => {
    const { chain, bettor } = await ready();
    chain.airdrop(betPda(1n)[0], 1_000n);
    chain.airdrop(bettor.state, 5_000_000n);
    await chain.placeBet(bettor, UP, STAKE, PRICE);
    expect(chain.readBet(1n).status).toBe(0);
    expect(chain.readAccount(betPda(1n)[0])!.lamports).toBe(chain.svm.minimumBalanceForRentExemption(91n));
    expect(chain.readAccount(bettor.state)!.lamports).toBe(5_000_000n);
  });

  it('one open bet per bettor, also for two transactions in the same slot', async () => {
    const { chain, bettor } = await ready();
    const slot = chain.svm.getClock().slot;
    const first = await chain.placeBetIx(bettor, { id: 1n, side: UP, amount: STAKE, entryPrice: PRICE });
    const second = await chain.placeBetIx(bettor, { id: 2n, side: DOWN, amount: STAKE, entryPrice: PRICE });
    const sameId = await chain.placeBetIx(bettor, { id: 1n, side: DOWN, amount: STAKE + 1n, entryPrice: PRICE });
    chain.mustSend([first], [chain.relayer, bettor.key]);
    expectRefused(chain.send([second], [chain.relayer, bettor.key]), 'OpenBetExists');
    expectRefused(chain.send([sameId], [chain.relayer, bettor.key]), 'OpenBetExists');
    expect(chain.svm.getClock().slot).toBe(slot);
    expect(chain.tokenBalance(bettor.token)).toBe(FUNDS - STAKE);
    expect(chain.readAccount(betPda(2n)[0])).toBeNull();
    // A different bettor in the same slot is not affected.
    const other = chain.newBettor();
    chain.mustSend([await chain.placeBetIx(other, { id: 2n, side: DOWN, amount: STAKE, entryPrice: PRICE })], [chain.relayer, other.key]);
  });
});

describe('close_bet outcomes', () => {
  const cases = [
    { name: 'UP wins on exit > entry', side: UP, exit: PRICE + 1n, status: 1, paid: (STAKE * 13_000n) / 10_000n },
    { name: 'UP loses on exit < entry', side: UP, exit: PRICE - 1n, status: 2, paid: 0n },
    { name: 'DOWN wins on exit < entry', side: DOWN, exit: PRICE - 1n, status: 1, paid: (STAKE * 13_000n) / 10_000n },
    { name: 'DOWN loses on exit > entry', side: DOWN, exit: PRICE + 1n, status: 2, paid: 0n },
    { name: 'UP tie refunds exactly the stake', side: UP, exit: PRICE, status: 3, paid: STAKE },
    { name: 'DOWN tie refunds exactly the stake', side: DOWN, exit: PRICE, status: 3, paid: STAKE },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const { chain, bettor } = await ready();
      const { id } = await chain.placeBet(bettor, c.side, STAKE, PRICE);
      const vaultAfterStake = chain.tokenBalance(chain.vault);
      chain.setTime(chain.readBet(id).expire_time);
      chain.mustSend([await chain.closeBetIx(id, bettor, c.exit)], [chain.relayer]);
      expect(chain.readBet(id)).toMatchObject({ status: c.status, exit_price: c.exit, amount: STAKE });
      expect(chain.tokenBalance(bettor.token)).toBe(FUNDS - STAKE + c.paid);
      expect(chain.tokenBalance(chain.vault)).toBe(vaultAfterStake - c.paid);
      expect(chain.readBettorState(bettor)).toMatchObject({ has_open_bet: 0, bets_placed: 1n });
      expect(chain.readAccount(betPda(id)[0])).not.toBeNull();
      // The bettor may bet again once the bet is closed.
      const next = await chain.placeBet(bettor, c.side, STAKE, PRICE);
      expect(next.id).toBe(id + 1n);
    });
  }

  it('a win pays floor(stake x multiplier_bps / 10000)', async () => {
    const { chain, bettor } = await ready();
    const odd = 123_456_789n;
    const { id } = await chain.placeBet(bettor, UP, odd, PRICE);
    chain.setTime(chain.now() + 20n);
    chain.mustSend([await chain.closeBetIx(id, bettor, PRICE + 100n)], [chain.relayer]);
    expect(chain.tokenBalance(bettor.token)).toBe(FUNDS - odd + (odd * 13_000n) / 10_000n);
  });
});

describe('tie replay', () => {
  it('close_bet + place_bet for the same bettor in one transaction', async () => {
    const { chain, bettor } = await ready();
    const { id } = await chain.placeBet(bettor, UP, STAKE, PRICE);
    chain.setTime(chain.now() + 15n);
    const close = await chain.closeBetIx(id, bettor, PRICE);
    const place = await chain.placeBetIx(bettor, { id: id + 1n, side: UP, amount: STAKE, entryPrice: PRICE });
    chain.mustSend([close, place], [chain.relayer, bettor.key]);
    expect(chain.readBet(id).status).toBe(3);
    expect(chain.readBet(id + 1n)).toMatchObject({ status: 0, amount: STAKE, bet_time: chain.now() });
    expect(chain.readBettorState(bettor)).toMatchObject({ has_open_bet: 1, open_bet_id: id + 1n, bets_placed: 2n });
    expect(chain.tokenBalance(bettor.token)).toBe(FUNDS - STAKE);
  });
});

describe('set_paused', () => {
  it('the admin pauses and resumes; settlement still runs while paused', async () => {
    const { chain, bettor } = await ready();
    const { id } = await chain.placeBet(bettor, UP, STAKE, PRICE);
    chain.mustSend([await chain.setPausedIx(1)], [chain.admin]);
    expect(chain.readConfig().paused).toBe(1);
    chain.setTime(chain.now() + 15n);
    chain.mustSend([await chain.closeBetIx(id, bettor, PRICE + 1n)], [chain.relayer]);
    chain.mustSend([await chain.setPausedIx(0)], [chain.admin]);
    expect(chain.readConfig().paused).toBe(0);
  });
});
