/**
 * An attacker's transaction fails for each instruction: wrong signer, wrong owner, wrong PDA,
 * wrong mint, forged copies of program accounts, substituted programs. Balances stay put.
 */
import { Keypair, SystemProgram } from '@solana/web3.js';
import { createApproveInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { beforeEach, describe, expect, it } from 'vitest';
import { PROGRAM_ID, betPda } from '../index.ts';
import { forgeCopy, tokenAccountAt } from './forge.ts';
import { expectRefused } from './refusal.ts';
import { BetChain, DEFAULT_PARAMS, patchAccount, type Bettor } from './svm.ts';

const STAKE = 1_000_000_000n;
const PRICE = 15_000_000_000n;

let chain: BetChain;
let victim: Bettor;
let attacker: Bettor;

function newChain(): BetChain {
  const fresh = new BetChain();
  fresh.createMintAndVault();
  return fresh;
}

describe('initialize: attacker', () => {
  beforeEach(() => {
    chain = newChain();
  });

  it('cannot initialize in the admin name without its signature', async () => {
    const payer = Keypair.generate();
    chain.airdrop(payer.publicKey, 10_000_000_000n);
    const ix = patchAccount(await chain.initializeIx(), 'initialize', 'admin', { isSigner: false });
    expectRefused(chain.send([ix], [payer]), 'MissingSignature');
  });

  it('cannot make a config at a non-PDA address', async () => {
    const fake = Keypair.generate();
    const ix = patchAccount(await chain.initializeIx(DEFAULT_PARAMS, { config: fake.publicKey }), 'initialize', 'config', { isSigner: true });
    expectRefused(chain.send([ix], [chain.admin, fake]), 'InvalidPda');
  });

  it('cannot record a mint that is not an SPL mint', async () => {
    expectRefused(chain.send([await chain.initializeIx(DEFAULT_PARAMS, { mint: chain.admin.publicKey })], [chain.admin]), 'InvalidAccountOwner');
  });

  it('cannot record a vault of another mint', async () => {
    const other = newChain();
    const foreignVault = tokenAccountAt(chain, chain.config, other.mint);
    expectRefused(chain.send([await chain.initializeIx(DEFAULT_PARAMS, { vault: foreignVault })], [chain.admin]), 'InvalidMint');
  });

  it('cannot record a vault it controls', async () => {
    const own = tokenAccountAt(chain, chain.admin.publicKey, chain.mint);
    expectRefused(chain.send([await chain.initializeIx(DEFAULT_PARAMS, { vault: own })], [chain.admin]), 'InvalidTokenOwner');
  });

  it('cannot substitute the token or system program', async () => {
    expectRefused(chain.send([await chain.initializeIx(DEFAULT_PARAMS, { tokenProgram: PROGRAM_ID })], [chain.admin]), 'InvalidProgramId');
    expectRefused(chain.send([await chain.initializeIx(DEFAULT_PARAMS, { systemProgram: PROGRAM_ID })], [chain.admin]), 'InvalidProgramId');
  });
});

describe('place_bet / place_bet_delegated: attacker', () => {
  beforeEach(async () => {
    chain = new BetChain();
    await chain.setUp();
    victim = chain.newBettor();
    attacker = chain.newBettor();
  });

  const args = () => ({ id: chain.readConfig().next_bet_id, side: 0, amount: STAKE, entryPrice: PRICE });

  it('cannot act as relayer (attest its own entry price)', async () => {
    const ix = await chain.placeBetIx(attacker, args(), { accounts: { relayer: attacker.key.publicKey } });
    expectRefused(chain.send([ix], [attacker.key]), 'Unauthorized');
  });

  it("cannot stake from the victim's token account, signed or as delegate", async () => {
    const signed = await chain.placeBetIx(attacker, args(), { accounts: { bettorToken: victim.token } });
    expectRefused(chain.send([signed], [chain.relayer, attacker.key]), 'InvalidTokenOwner');
    chain.approveRelayer(victim, STAKE);
    const delegated = await chain.placeBetIx(attacker, args(), { delegated: true, accounts: { bettorToken: victim.token } });
    expectRefused(chain.send([delegated], [chain.relayer]), 'InvalidTokenOwner');
    expect(chain.tokenBalance(victim.token)).toBe(100_000_000_000n);
  });

  it("cannot place a bet in the victim's name without the victim's signature", async () => {
    const ix = patchAccount(await chain.placeBetIx(victim, args()), 'place_bet', 'bettor', { isSigner: false });
    expectRefused(chain.send([ix], [chain.relayer]), 'MissingSignature');
  });

  it('cannot use a delegate allowance given to someone else', async () => {
    chain.mustSend(
      [createApproveInstruction(victim.token, attacker.key.publicKey, victim.key.publicKey, STAKE)],
      [victim.key],
    );
    const ix = await chain.placeBetIx(victim, args(), { delegated: true, accounts: { relayer: attacker.key.publicKey } });
    expectRefused(chain.send([ix], [attacker.key]), 'Unauthorized');
  });

  it("cannot dodge the one-open-bet rule with another bettor's or a forged bettor state", async () => {
    await chain.placeBet(attacker, 0, STAKE, PRICE);
    await chain.placeBet(victim, 0, STAKE, PRICE);
    const borrowed = await chain.placeBetIx(attacker, args(), { accounts: { bettorState: victim.state } });
    expectRefused(chain.send([borrowed], [chain.relayer, attacker.key]), 'InvalidPda');
    const forged = forgeCopy(chain, attacker.state, (data) => (data[48] = 0));
    const withForged = await chain.placeBetIx(attacker, args(), { accounts: { bettorState: forged } });
    expectRefused(chain.send([withForged], [chain.relayer, attacker.key]), 'InvalidPda');
    const fresh = await chain.placeBetIx(attacker, args(), { accounts: { bettorState: Keypair.generate().publicKey } });
    expectRefused(chain.send([fresh], [chain.relayer, attacker.key]), 'InvalidPda');
  });

  it('place_bet_delegated: no relayer signature, wrong mint, non-PDA bet or bettor state all fail', async () => {
    chain.approveRelayer(attacker, STAKE * 10n);
    const delegated = (accounts = {}) => chain.placeBetIx(attacker, args(), { delegated: true, accounts });
    const unsigned = patchAccount(await delegated(), 'place_bet_delegated', 'relayer', { isSigner: false });
    expectRefused(chain.send([unsigned], [attacker.key]), 'MissingSignature');
    const other = newChain();
    const worthless = tokenAccountAt(chain, attacker.key.publicKey, other.mint, STAKE * 5n);
    expectRefused(chain.send([await delegated({ bettorToken: worthless })], [chain.relayer]), 'InvalidMint');
    expectRefused(chain.send([await delegated({ bet: Keypair.generate().publicKey })], [chain.relayer]), 'InvalidPda');
    expectRefused(chain.send([await delegated({ bettorState: victim.state })], [chain.relayer]), 'InvalidPda');
    expectRefused(chain.send([await delegated({ vault: attacker.token })], [chain.relayer]), 'InvalidVault');
    expect(chain.tokenBalance(attacker.token)).toBe(100_000_000_000n);
    chain.mustSend([await delegated()], [chain.relayer]);
    expect(chain.tokenBalance(attacker.token)).toBe(100_000_000_000n - STAKE);
  });

  it('cannot create the bet at a non-PDA address', async () => {
    const ix = await chain.placeBetIx(attacker, args(), { accounts: { bet: Keypair.generate().publicKey } });
    expectRefused(chain.send([ix], [chain.relayer, attacker.key]), 'InvalidPda');
  });

  it('cannot send the stake to its own account instead of the vault', async () => {
    const sink = tokenAccountAt(chain, attacker.key.publicKey, chain.mint);
    const ix = await chain.placeBetIx(attacker, args(), { accounts: { vault: sink } });
    expectRefused(chain.send([ix], [chain.relayer, attacker.key]), 'InvalidVault');
  });

  it('cannot stake another mint', async () => {
    const other = newChain();
    const worthless = tokenAccountAt(chain, attacker.key.publicKey, other.mint, STAKE * 5n);
    const ix = await chain.placeBetIx(attacker, args(), { accounts: { bettorToken: worthless } });
    expectRefused(chain.send([ix], [chain.relayer, attacker.key]), 'InvalidMint');
  });

  it('cannot bring its own config (forged copy, or an account of another program)', async () => {
    const forged = forgeCopy(chain, chain.config, (data) => data.set(attacker.key.publicKey.toBytes(), 40));
    const ix = await chain.placeBetIx(attacker, args(), { accounts: { config: forged, relayer: attacker.key.publicKey } });
    expectRefused(chain.send([ix], [attacker.key]), 'InvalidPda');
    const foreign = await chain.placeBetIx(attacker, args(), { accounts: { config: chain.mint } });
    expectRefused(chain.send([foreign], [chain.relayer, attacker.key]), 'InvalidAccountOwner');
  });

  it('cannot substitute the token or system program', async () => {
    const token = await chain.placeBetIx(attacker, args(), { accounts: { tokenProgram: SystemProgram.programId } });
    expectRefused(chain.send([token], [chain.relayer, attacker.key]), 'InvalidProgramId');
    const system = await chain.placeBetIx(attacker, args(), { accounts: { systemProgram: PROGRAM_ID } });
    expectRefused(chain.send([system], [chain.relayer, attacker.key]), 'InvalidProgramId');
  });
});

describe('close_bet: attacker', () => {
  let id: bigint;
  beforeEach(async () => {
    chain = new BetChain();
    await chain.setUp();
    victim = chain.newBettor();
    attacker = chain.newBettor();
    id = (await chain.placeBet(victim, 0, STAKE, PRICE)).id;
    await chain.placeBet(attacker, 0, STAKE, PRICE);
    chain.setTime(chain.now() + 15n);
  });

  const win = PRICE + 1n;

  it('cannot act as relayer (attest the exit price)', async () => {
    const ix = await chain.closeBetIx(id, victim, win, { relayer: attacker.key.publicKey });
    expectRefused(chain.send([ix], [attacker.key]), 'Unauthorized');
    const unsigned = patchAccount(await chain.closeBetIx(id, victim, win), 'close_bet', 'relayer', { isSigner: false });
    expectRefused(chain.send([unsigned], [attacker.key]), 'MissingSignature');
  });

  it("cannot redirect the victim's payout to itself", async () => {
    expectRefused(chain.send([await chain.closeBetIx(id, victim, win, { bettorToken: attacker.token })], [chain.relayer]), 'BettorMismatch');
    const sink = tokenAccountAt(chain, attacker.key.publicKey, chain.mint);
    expectRefused(chain.send([await chain.closeBetIx(id, victim, win, { bettorToken: sink })], [chain.relayer]), 'BettorMismatch');
  });

  it('cannot pay out of another account or in another mint', async () => {
    const fakeVault = tokenAccountAt(chain, chain.config, chain.mint, STAKE * 10n);
    expectRefused(chain.send([await chain.closeBetIx(id, victim, win, { vault: fakeVault })], [chain.relayer]), 'InvalidVault');
    const other = newChain();
    const foreign = tokenAccountAt(chain, victim.key.publicKey, other.mint);
    expectRefused(chain.send([await chain.closeBetIx(id, victim, win, { bettorToken: foreign })], [chain.relayer]), 'InvalidMint');
  });

  it('cannot settle a forged bet or a bet owned by another program', async () => {
    const forged = forgeCopy(chain, betPda(id)[0]);
    expectRefused(chain.send([await chain.closeBetIx(id, victim, win, { bet: forged })], [chain.relayer]), 'InvalidPda');
    expectRefused(chain.send([await chain.closeBetIx(id, victim, win, { bet: victim.token })], [chain.relayer]), 'InvalidAccountOwner');
  });

  it("cannot clear another bettor's state or use a forged one", async () => {
    expectRefused(chain.send([await chain.closeBetIx(id, victim, win, { bettorState: attacker.state })], [chain.relayer]), 'BettorMismatch');
    const forged = forgeCopy(chain, victim.state);
    expectRefused(chain.send([await chain.closeBetIx(id, victim, win, { bettorState: forged })], [chain.relayer]), 'InvalidPda');
  });

  it('cannot bring its own config or token program', async () => {
    const forged = forgeCopy(chain, chain.config, (data) => data.set(attacker.key.publicKey.toBytes(), 40));
    expectRefused(chain.send([await chain.closeBetIx(id, victim, win, { config: forged, relayer: attacker.key.publicKey })], [attacker.key]), 'InvalidPda');
    expectRefused(chain.send([await chain.closeBetIx(id, victim, win, { tokenProgram: SystemProgram.programId })], [chain.relayer]), 'InvalidProgramId');
  });

  it('leaves every balance and the bet untouched after all of the above', async () => {
    const vault = chain.tokenBalance(chain.vault);
    expectRefused(chain.send([await chain.closeBetIx(id, victim, win, { bettorToken: attacker.token })], [chain.relayer]), 'BettorMismatch');
    expect(chain.tokenBalance(chain.vault)).toBe(vault);
    expect(chain.readBet(id).status).toBe(0);
    chain.mustSend([await chain.closeBetIx(id, victim, win)], [chain.relayer]);
    expect(chain.tokenBalance(victim.token)).toBe(100_000_000_000n - STAKE + (STAKE * 13_000n) / 10_000n);
  });
});

describe('set_paused: attacker', () => {
  beforeEach(async () => {
    chain = new BetChain();
    await chain.setUp(DEFAULT_PARAMS, 0n);
  });

  it('cannot pause as a stranger, or without the admin signature', async () => {
    const stranger = Keypair.generate();
    chain.airdrop(stranger.publicKey, 1_000_000_000n);
    expectRefused(chain.send([await chain.setPausedIx(1, { admin: stranger.publicKey })], [stranger]), 'Unauthorized');
    expectRefused(chain.send([patchAccount(await chain.setPausedIx(1), 'set_paused', 'admin', { isSigner: false })], [stranger]), 'MissingSignature');
  });

  it('cannot pause through a forged config naming it admin, or another program account', async () => {
    const stranger = Keypair.generate();
    chain.airdrop(stranger.publicKey, 1_000_000_000n);
    const forged = forgeCopy(chain, chain.config, (data) => data.set(stranger.publicKey.toBytes(), 8));
    expectRefused(chain.send([await chain.setPausedIx(1, { config: forged, admin: stranger.publicKey })], [stranger]), 'InvalidPda');
    const ata = getAssociatedTokenAddressSync(chain.mint, chain.config, true);
    expectRefused(chain.send([await chain.setPausedIx(1, { config: ata })], [chain.admin]), 'InvalidAccountOwner');
    expectRefused(chain.send([patchAccount(await chain.setPausedIx(1), 'set_paused', 'config', { isWritable: false })], [chain.admin]), 'AccountNotWritable');
    expect(chain.readConfig().paused).toBe(0);
  });
});
