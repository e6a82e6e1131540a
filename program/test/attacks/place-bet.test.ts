/**
 * place_bet / place_bet_delegated: an attacker cannot act as relayer, stake from the victim's
 * account, take over bet addresses, dodge the one-open-bet rule, or bring its own accounts.
 */
import { Keypair, SystemProgram } from '@solana/web3.js';
import { createApproveInstruction } from '@solana/spl-token';
import { beforeEach, describe, expect, it } from 'vitest';
import { PROGRAM_ID } from '../../index.ts';
import { forgeCopy, tokenAccountAt } from '../forge.ts';
import { expectRefused } from '../refusal.ts';
import { BetChain, patchAccount, type Bettor } from '../svm.ts';
import { STAKE, PRICE, FUNDS, newChain } from './support.ts';

let chain: BetChain;
let victim: Bettor;
let attacker: Bettor;

describe('place_bet / place_bet_delegated: attacker', () => {
  beforeEach(async () => {
    chain = new BetChain();
    await chain.setUp();
    victim = chain.newBettor();
    attacker = chain.newBettor();
  });

  const args = { side: 0, amount: STAKE, entryPrice: PRICE };

  it('cannot act as relayer (attest its own entry price)', async () => {
    const ix = await chain.placeBetIx(attacker, args, { accounts: { relayer: attacker.key.publicKey } });
    expectRefused(chain.send([ix], [attacker.key]), 'Unauthorized');
  });

  it('the admin cannot act as relayer either', async () => {
    const ix = await chain.placeBetIx(attacker, args, { accounts: { relayer: chain.admin.publicKey } });
    expectRefused(chain.send([ix], [chain.admin, attacker.key]), 'Unauthorized');
  });

  it("cannot stake from the victim's token account, signed or as delegate", async () => {
    const signed = await chain.placeBetIx(attacker, args, { accounts: { bettorToken: victim.token } });
    expectRefused(chain.send([signed], [chain.relayer, attacker.key]), 'InvalidTokenOwner');
    chain.approveRelayer(victim, STAKE);
    const delegated = await chain.delegatedIxs(attacker, args, { accounts: { bettorToken: victim.token } });
    expectRefused(chain.send(delegated, [chain.relayer]), 'InvalidTokenOwner');
    expect(chain.tokenBalance(victim.token)).toBe(FUNDS);
  });

  it("cannot place a bet in the victim's name without the victim's signature", async () => {
    const ix = patchAccount(await chain.placeBetIx(victim, args), 'place_bet', 'bettor', { isSigner: false });
    expectRefused(chain.send([ix], [chain.relayer]), 'MissingSignature');
  });

  it('cannot use a delegate allowance given to someone else', async () => {
    chain.mustSend([createApproveInstruction(victim.token, attacker.key.publicKey, victim.key.publicKey, STAKE)], [victim.key]);
    const ixs = await chain.delegatedIxs(victim, args, { accounts: { relayer: attacker.key.publicKey } });
    expectRefused(chain.send(ixs, [attacker.key]), 'Unauthorized');
  });

  it("cannot dodge the one-open-bet rule with another bettor's or a forged bettor state", async () => {
    await chain.placeBet(attacker, 0, STAKE, PRICE);
    await chain.placeBet(victim, 0, STAKE, PRICE);
    const borrowed = await chain.placeBetIx(attacker, args, { accounts: { bettorState: victim.state } });
    expectRefused(chain.send([borrowed], [chain.relayer, attacker.key]), 'InvalidPda');
    const forged = forgeCopy(chain, attacker.state, (data) => (data[80] = 0));
    const withForged = await chain.placeBetIx(attacker, args, { accounts: { bettorState: forged } });
    expectRefused(chain.send([withForged], [chain.relayer, attacker.key]), 'InvalidPda');
    const fresh = await chain.placeBetIx(attacker, args, { accounts: { bettorState: Keypair.generate().publicKey } });
    expectRefused(chain.send([fresh], [chain.relayer, attacker.key]), 'InvalidPda');
  });

  it("cannot take over the victim's next bet address, or reuse its own earlier one", async () => {
    const squat = await chain.placeBetIx(attacker, args, { accounts: { bet: chain.betAddress(victim, 0n) } });
    expectRefused(chain.send([squat], [chain.relayer, attacker.key]), 'InvalidPda');
    const { bet } = await chain.placeBet(attacker, 0, STAKE, PRICE);
    chain.setTime(chain.now() + 15n);
    chain.mustSend([await chain.closeBetIx(bet, attacker, PRICE)], [chain.relayer]);
    const reuse = await chain.placeBetIx(attacker, args, { seq: 0n });
    expectRefused(chain.send([reuse], [chain.relayer, attacker.key]), 'InvalidPda');
    chain.mustSend([await chain.placeBetIx(victim, args)], [chain.relayer, victim.key]);
  });

  it('place_bet_delegated: no relayer signature, wrong mint, non-PDA bet or bettor state all fail', async () => {
    chain.approveRelayer(attacker, STAKE * 10n);
    const delegated = (accounts = {}) => chain.delegatedIxs(attacker, args, { accounts });
    const [intent, place] = await delegated();
    const unsigned = patchAccount(place!, 'place_bet_delegated', 'relayer', { isSigner: false });
    expectRefused(chain.send([intent!, unsigned], [attacker.key]), 'MissingSignature');
    const other = newChain();
    const worthless = tokenAccountAt(chain, attacker.key.publicKey, other.mint, STAKE * 5n);
    expectRefused(chain.send(await delegated({ bettorToken: worthless }), [chain.relayer]), 'InvalidMint');
    expectRefused(chain.send(await delegated({ bet: Keypair.generate().publicKey }), [chain.relayer]), 'InvalidPda');
    expectRefused(chain.send(await delegated({ bettorState: victim.state }), [chain.relayer]), 'InvalidPda');
    expectRefused(chain.send(await delegated({ vault: attacker.token }), [chain.relayer]), 'InvalidVault');
    expect(chain.tokenBalance(attacker.token)).toBe(FUNDS);
    chain.mustSend(await delegated(), [chain.relayer]);
    expect(chain.tokenBalance(attacker.token)).toBe(FUNDS - STAKE);
  });

  it('cannot create the bet at a non-PDA address', async () => {
    const ix = await chain.placeBetIx(attacker, args, { accounts: { bet: Keypair.generate().publicKey } });
    expectRefused(chain.send([ix], [chain.relayer, attacker.key]), 'InvalidPda');
  });

  it('cannot send the stake to its own account instead of the vault', async () => {
    const sink = tokenAccountAt(chain, attacker.key.publicKey, chain.mint);
    const ix = await chain.placeBetIx(attacker, args, { accounts: { vault: sink } });
    expectRefused(chain.send([ix], [chain.relayer, attacker.key]), 'InvalidVault');
  });

  it('cannot stake another mint', async () => {
    const other = newChain();
    const worthless = tokenAccountAt(chain, attacker.key.publicKey, other.mint, STAKE * 5n);
    const ix = await chain.placeBetIx(attacker, args, { accounts: { bettorToken: worthless } });
    expectRefused(chain.send([ix], [chain.relayer, attacker.key]), 'InvalidMint');
  });

  it('cannot bring its own config (forged copy, or an account of another program)', async () => {
    const forged = forgeCopy(chain, chain.config, (data) => data.set(attacker.key.publicKey.toBytes(), 72));
    const ix = await chain.placeBetIx(attacker, args, { accounts: { config: forged, relayer: attacker.key.publicKey } });
    expectRefused(chain.send([ix], [attacker.key]), 'InvalidPda');
    const foreign = await chain.placeBetIx(attacker, args, { accounts: { config: chain.mint } });
    expectRefused(chain.send([foreign], [chain.relayer, attacker.key]), 'InvalidAccountOwner');
  });

  it('cannot substitute the token or system program', async () => {
    const token = await chain.placeBetIx(attacker, args, { accounts: { tokenProgram: SystemProgram.programId } });
    expectRefused(chain.send([token], [chain.relayer, attacker.key]), 'InvalidProgramId');
    const system = await chain.placeBetIx(attacker, args, { accounts: { systemProgram: PROGRAM_ID } });
    expectRefused(chain.send([system], [chain.relayer, attacker.key]), 'InvalidProgramId');
  });
});
