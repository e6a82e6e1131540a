/**
 * close_bet / refund_expired: an attacker cannot attest the exit price, redirect payouts or
 * refunds, settle forged bets, or bring its own config or token program; balances stay put.
 */
import type { PublicKey } from '@solana/web3.js';
import { SystemProgram } from '@solana/web3.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { forgeCopy, tokenAccountAt } from '../forge.ts';
import { expectRefused } from '../refusal.ts';
import { BetChain, DEFAULT_PARAMS, patchAccount, type Bettor } from '../svm.ts';
import { STAKE, PRICE, FUNDS, newChain } from './support.ts';

let chain: BetChain;
let victim: Bettor;
let attacker: Bettor;

describe('close_bet / refund_expired: attacker', () => {
  let bet: PublicKey;
  let attackerBet: PublicKey;
  beforeEach(async () => {
    chain = new BetChain();
    await chain.setUp();
    victim = chain.newBettor();
    attacker = chain.newBettor();
    bet = (await chain.placeBet(victim, 0, STAKE, PRICE)).bet;
    attackerBet = (await chain.placeBet(attacker, 0, STAKE, PRICE)).bet;
    chain.setTime(chain.now() + 15n);
  });

  const win = PRICE + 1n;
  const refundable = () => chain.setTime(chain.now() + DEFAULT_PARAMS.refundAfterSeconds);

  it('cannot act as relayer (attest the exit price)', async () => {
    const ix = await chain.closeBetIx(bet, victim, win, { relayer: attacker.key.publicKey });
    expectRefused(chain.send([ix], [attacker.key]), 'Unauthorized');
    const unsigned = patchAccount(await chain.closeBetIx(bet, victim, win), 'close_bet', 'relayer', { isSigner: false });
    expectRefused(chain.send([unsigned], [attacker.key]), 'MissingSignature');
    const admin = await chain.closeBetIx(bet, victim, win, { relayer: chain.admin.publicKey });
    expectRefused(chain.send([admin], [chain.admin]), 'Unauthorized');
  });

  it("cannot redirect the victim's payout or refund to itself", async () => {
    expectRefused(chain.send([await chain.closeBetIx(bet, victim, win, { bettorToken: attacker.token })], [chain.relayer]), 'BettorMismatch');
    const sink = tokenAccountAt(chain, attacker.key.publicKey, chain.mint);
    expectRefused(chain.send([await chain.closeBetIx(bet, victim, win, { bettorToken: sink })], [chain.relayer]), 'BettorMismatch');
    refundable();
    expectRefused(chain.send([await chain.refundExpiredIx(bet, victim, { bettorToken: attacker.token })], [attacker.key]), 'BettorMismatch');
    expectRefused(chain.send([await chain.refundExpiredIx(bet, victim, { bettorToken: sink })], [attacker.key]), 'BettorMismatch');
  });

  it('cannot pay out of another account or in another mint', async () => {
    const fakeVault = tokenAccountAt(chain, chain.config, chain.mint, STAKE * 10n);
    expectRefused(chain.send([await chain.closeBetIx(bet, victim, win, { vault: fakeVault })], [chain.relayer]), 'InvalidVault');
    const other = newChain();
    const foreign = tokenAccountAt(chain, victim.key.publicKey, other.mint);
    expectRefused(chain.send([await chain.closeBetIx(bet, victim, win, { bettorToken: foreign })], [chain.relayer]), 'InvalidMint');
    refundable();
    expectRefused(chain.send([await chain.refundExpiredIx(bet, victim, { vault: fakeVault })], [attacker.key]), 'InvalidVault');
    expectRefused(chain.send([await chain.refundExpiredIx(bet, victim, { bettorToken: foreign })], [attacker.key]), 'InvalidMint');
  });

  it('cannot settle or refund a forged bet or a bet owned by another program', async () => {
    const forged = forgeCopy(chain, bet);
    expectRefused(chain.send([await chain.closeBetIx(forged, victim, win)], [chain.relayer]), 'InvalidPda');
    expectRefused(chain.send([await chain.closeBetIx(victim.token, victim, win)], [chain.relayer]), 'InvalidAccountOwner');
    // A forged copy whose expiry is long past: still not the PDA.
    refundable();
    const early = forgeCopy(chain, bet, (data) => data.fill(0, 121, 129));
    expectRefused(chain.send([await chain.refundExpiredIx(early, victim)], [attacker.key]), 'InvalidPda');
  });

  it("cannot clear another bettor's state or use a forged one", async () => {
    expectRefused(chain.send([await chain.closeBetIx(bet, victim, win, { bettorState: attacker.state })], [chain.relayer]), 'BettorMismatch');
    const forged = forgeCopy(chain, victim.state);
    expectRefused(chain.send([await chain.closeBetIx(bet, victim, win, { bettorState: forged })], [chain.relayer]), 'InvalidPda');
    refundable();
    expectRefused(chain.send([await chain.refundExpiredIx(bet, victim, { bettorState: attacker.state })], [attacker.key]), 'BettorMismatch');
    expectRefused(chain.send([await chain.refundExpiredIx(bet, victim, { bettorState: forged })], [attacker.key]), 'InvalidPda');
  });

  it('cannot bring its own config or token program', async () => {
    const forged = forgeCopy(chain, chain.config, (data) => data.set(attacker.key.publicKey.toBytes(), 72));
    expectRefused(chain.send([await chain.closeBetIx(bet, victim, win, { config: forged, relayer: attacker.key.publicKey })], [attacker.key]), 'InvalidPda');
    expectRefused(chain.send([await chain.closeBetIx(bet, victim, win, { tokenProgram: SystemProgram.programId })], [chain.relayer]), 'InvalidProgramId');
    // A forged config with no refund delay: still not the config PDA.
    const noDelay = forgeCopy(chain, chain.config, (data) => data.fill(0, 216, 224));
    expectRefused(chain.send([await chain.refundExpiredIx(bet, victim, { config: noDelay })], [attacker.key]), 'InvalidPda');
    refundable();
    expectRefused(chain.send([await chain.refundExpiredIx(bet, victim, { tokenProgram: SystemProgram.programId })], [attacker.key]), 'InvalidProgramId');
  });

  it('cannot refund a bet early, twice, or after it was settled', async () => {
    expectRefused(chain.send([await chain.refundExpiredIx(bet, victim)], [attacker.key]), 'RefundNotYetAllowed');
    chain.mustSend([await chain.closeBetIx(attackerBet, attacker, PRICE - 1n)], [chain.relayer]);
    refundable();
    expectRefused(chain.send([await chain.refundExpiredIx(attackerBet, attacker)], [attacker.key]), 'BetAlreadyClosed');
    chain.mustSend([await chain.refundExpiredIx(bet, victim)], [attacker.key]);
    expectRefused(chain.send([await chain.refundExpiredIx(bet, victim)], [attacker.key]), 'BetAlreadyClosed');
    expect(chain.tokenBalance(victim.token)).toBe(FUNDS);
    expect(chain.tokenBalance(attacker.token)).toBe(FUNDS - STAKE);
  });

  it('leaves every balance and the bet untouched after all of the above', async () => {
    const vault = chain.tokenBalance(chain.vault);
    expectRefused(chain.send([await chain.closeBetIx(bet, victim, win, { bettorToken: attacker.token })], [chain.relayer]), 'BettorMismatch');
    expect(chain.tokenBalance(chain.vault)).toBe(vault);
    expect(chain.readBet(bet).status).toBe(0);
    chain.mustSend([await chain.closeBetIx(bet, victim, win)], [chain.relayer]);
    expect(chain.tokenBalance(victim.token)).toBe(FUNDS - STAKE + (STAKE * 13_000n) / 10_000n);
  });
});
