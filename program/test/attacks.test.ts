/**
 * An attacker's transaction fails for each instruction: wrong signer, wrong owner, wrong PDA,
 * wrong mint, forged copies of program accounts, forged loader accounts, substituted programs,
 * rent or payouts redirected to itself. Balances stay put.
 */
import { readFileSync } from 'node:fs';
import { Keypair, PublicKey, SystemProgram } from '@solana/web3.js';
import { createApproveInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { address } from '@solana/kit';
import { beforeEach, describe, expect, it } from 'vitest';
import { PROGRAM_ID, PROGRAM_SO_PATH, UPGRADEABLE_LOADER_ID, programDataPda } from '../index.ts';
import { forgeCopy, tokenAccountAt, writeAccount } from './forge.ts';
import { expectRefused } from './refusal.ts';
import { BetChain, DEFAULT_PARAMS, TOKEN_PROGRAM_ID, patchAccount, type Bettor } from './svm.ts';

const STAKE = 1_000_000_000n;
const PRICE = 15_000_000_000n;
const FUNDS = 100_000_000_000n;

let chain: BetChain;
let victim: Bettor;
let attacker: Bettor;

function newChain(): BetChain {
  const fresh = new BetChain();
  fresh.createMintAndVault();
  return fresh;
}

/** A funded key that has no role. */
function stranger(on: BetChain): Keypair {
  const key = Keypair.generate();
  on.airdrop(key.publicKey, 10_000_000_000n);
  return key;
}

describe('initialize: attacker', () => {
  beforeEach(() => {
    chain = newChain();
  });

  it("cannot initialize in the upgrade authority's name without its signature", async () => {
    const payer = stranger(chain);
    const ix = patchAccount(await chain.initializeIx(), 'initialize', 'authority', { isSigner: false });
    expectRefused(chain.send([ix], [payer]), 'MissingSignature');
  });

  it('cannot initialize with a key that is not the upgrade authority (the admin or a stranger)', async () => {
    expectRefused(chain.send([await chain.initializeIx(DEFAULT_PARAMS, { authority: chain.admin.publicKey })], [chain.admin]), 'NotUpgradeAuthority');
    const thief = stranger(chain);
    const own = await chain.initializeIx(DEFAULT_PARAMS, { authority: thief.publicKey, admin: thief.publicKey });
    expectRefused(chain.send([own], [thief]), 'NotUpgradeAuthority');
    expect(chain.readAccount(chain.config)).toBeNull();
  });

  it('cannot pass its own upgradeable program (where it is the authority) as the program', async () => {
    const thief = stranger(chain);
    const decoy = Keypair.generate().publicKey;
    chain.svm.addProgram(address(decoy.toBase58()), readFileSync(PROGRAM_SO_PATH));
    chain.setUpgradeAuthority(thief.publicKey, decoy);
    const ix = await chain.initializeIx(DEFAULT_PARAMS, { authority: thief.publicKey, program: decoy, programData: programDataPda(decoy)[0] });
    expectRefused(chain.send([ix], [thief]), 'InvalidProgramAccount');
    // The real program with the decoy's ProgramData (naming the thief): not the address the program names.
    const mixed = await chain.initializeIx(DEFAULT_PARAMS, { authority: thief.publicKey, programData: programDataPda(decoy)[0] });
    expectRefused(chain.send([mixed], [thief]), 'InvalidProgramData');
  });

  it('cannot bring a forged ProgramData at another address, even owned by the loader', async () => {
    const thief = stranger(chain);
    const forged = forgeCopy(chain, chain.programData, (data) => data.set(thief.publicKey.toBytes(), 13));
    expect(chain.readAccount(forged)!.owner).toBe(UPGRADEABLE_LOADER_ID.toBase58());
    const ix = await chain.initializeIx(DEFAULT_PARAMS, { authority: thief.publicKey, programData: forged });
    expectRefused(chain.send([ix], [thief]), 'InvalidProgramData');
  });

  it('a ProgramData not owned by the loader is refused, even at the right address and naming the signer', async () => {
    const real = chain.readAccount(chain.programData)!;
    writeAccount(chain, chain.programData, { owner: SystemProgram.programId, data: real.data, lamports: real.lamports });
    expectRefused(chain.send([await chain.initializeIx()], [chain.authority]), 'InvalidProgramData');
    writeAccount(chain, chain.programData, { owner: TOKEN_PROGRAM_ID, data: real.data, lamports: real.lamports });
    expectRefused(chain.send([await chain.initializeIx()], [chain.authority]), 'InvalidProgramData');
  });

  it('nobody initializes an immutable program (upgrade authority None)', async () => {
    chain.setUpgradeAuthority(null);
    expectRefused(chain.send([await chain.initializeIx()], [chain.authority]), 'NotUpgradeAuthority');
    const data = chain.readAccount(chain.programData)!.data;
    expect(data[12]).toBe(0);
    expect(data.subarray(13, 45).every((b) => b === 0)).toBe(true);
  });

  it('cannot make a config at a non-PDA address', async () => {
    const fake = Keypair.generate();
    const ix = patchAccount(await chain.initializeIx(DEFAULT_PARAMS, { config: fake.publicKey }), 'initialize', 'config', { isSigner: true });
    expectRefused(chain.send([ix], [chain.authority, fake]), 'InvalidPda');
  });

  it('cannot record a mint that is not an SPL mint', async () => {
    expectRefused(chain.send([await chain.initializeIx(DEFAULT_PARAMS, { mint: chain.admin.publicKey })], [chain.authority]), 'InvalidAccountOwner');
  });

  it('cannot record a vault of another mint', async () => {
    const other = newChain();
    const foreignVault = tokenAccountAt(chain, chain.config, other.mint);
    expectRefused(chain.send([await chain.initializeIx(DEFAULT_PARAMS, { vault: foreignVault })], [chain.authority]), 'InvalidMint');
  });

  it('cannot record a vault it controls', async () => {
    const own = tokenAccountAt(chain, chain.admin.publicKey, chain.mint);
    expectRefused(chain.send([await chain.initializeIx(DEFAULT_PARAMS, { vault: own })], [chain.authority]), 'InvalidTokenOwner');
  });

  it('cannot substitute the token or system program', async () => {
    expectRefused(chain.send([await chain.initializeIx(DEFAULT_PARAMS, { tokenProgram: PROGRAM_ID })], [chain.authority]), 'InvalidProgramId');
    expectRefused(chain.send([await chain.initializeIx(DEFAULT_PARAMS, { systemProgram: PROGRAM_ID })], [chain.authority]), 'InvalidProgramId');
  });
});

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
    const delegated = await chain.placeBetIx(attacker, args, { delegated: true, accounts: { bettorToken: victim.token } });
    expectRefused(chain.send([delegated], [chain.relayer]), 'InvalidTokenOwner');
    expect(chain.tokenBalance(victim.token)).toBe(FUNDS);
  });

  it("cannot place a bet in the victim's name without the victim's signature", async () => {
    const ix = patchAccount(await chain.placeBetIx(victim, args), 'place_bet', 'bettor', { isSigner: false });
    expectRefused(chain.send([ix], [chain.relayer]), 'MissingSignature');
  });

  it('cannot use a delegate allowance given to someone else', async () => {
    chain.mustSend([createApproveInstruction(victim.token, attacker.key.publicKey, victim.key.publicKey, STAKE)], [victim.key]);
    const ix = await chain.placeBetIx(victim, args, { delegated: true, accounts: { relayer: attacker.key.publicKey } });
    expectRefused(chain.send([ix], [attacker.key]), 'Unauthorized');
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
    const delegated = (accounts = {}) => chain.placeBetIx(attacker, args, { delegated: true, accounts });
    const unsigned = patchAccount(await delegated(), 'place_bet_delegated', 'relayer', { isSigner: false });
    expectRefused(chain.send([unsigned], [attacker.key]), 'MissingSignature');
    const other = newChain();
    const worthless = tokenAccountAt(chain, attacker.key.publicKey, other.mint, STAKE * 5n);
    expectRefused(chain.send([await delegated({ bettorToken: worthless })], [chain.relayer]), 'InvalidMint');
    expectRefused(chain.send([await delegated({ bet: Keypair.generate().publicKey })], [chain.relayer]), 'InvalidPda');
    expectRefused(chain.send([await delegated({ bettorState: victim.state })], [chain.relayer]), 'InvalidPda');
    expectRefused(chain.send([await delegated({ vault: attacker.token })], [chain.relayer]), 'InvalidVault');
    expect(chain.tokenBalance(attacker.token)).toBe(FUNDS);
    chain.mustSend([await delegated()], [chain.relayer]);
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

describe('reclaim_bet / close_bettor: attacker', () => {
  let bet: PublicKey;
  beforeEach(async () => {
    chain = new BetChain();
    await chain.setUp();
    victim = chain.newBettor();
    attacker = chain.newBettor();
    bet = (await chain.placeBet(victim, 0, STAKE, PRICE)).bet;
    chain.setTime(chain.now() + 15n);
    chain.mustSend([await chain.closeBetIx(bet, victim, PRICE - 1n)], [chain.relayer]);
  });

  it('cannot reclaim or close as a stranger, as the admin, or without the relayer signature', async () => {
    const thief = stranger(chain);
    expectRefused(chain.send([await chain.reclaimBetIx(bet, victim, { relayer: thief.publicKey, payer: thief.publicKey })], [thief]), 'Unauthorized');
    expectRefused(chain.send([await chain.reclaimBetIx(bet, victim, { relayer: chain.admin.publicKey })], [chain.admin]), 'Unauthorized');
    const unsigned = patchAccount(await chain.reclaimBetIx(bet, victim), 'reclaim_bet', 'relayer', { isSigner: false });
    expectRefused(chain.send([unsigned], [thief]), 'MissingSignature');
    chain.mustSend([await chain.reclaimBetIx(bet, victim)], [chain.relayer]);
    expectRefused(chain.send([await chain.closeBettorIx(victim, { relayer: thief.publicKey, payer: thief.publicKey })], [thief]), 'Unauthorized');
    const unsignedClose = patchAccount(await chain.closeBettorIx(victim), 'close_bettor', 'relayer', { isSigner: false });
    expectRefused(chain.send([unsignedClose], [thief]), 'MissingSignature');
  });

  it('the relayer cannot take the rent: it goes to the recorded payer only', async () => {
    const thief = Keypair.generate().publicKey;
    expectRefused(chain.send([await chain.reclaimBetIx(bet, victim, { payer: thief })], [chain.relayer]), 'PayerMismatch');
    expectRefused(chain.send([await chain.reclaimBetIx(bet, victim, { payer: victim.key.publicKey })], [chain.relayer]), 'PayerMismatch');
    expect(chain.readAccount(thief)).toBeNull();
  });

  it('cannot reclaim an open bet, a forged settled copy, or through another bettor state', async () => {
    const open = (await chain.placeBet(attacker, 0, STAKE, PRICE)).bet;
    expectRefused(chain.send([await chain.reclaimBetIx(open, attacker)], [chain.relayer]), 'BetStillOpen');
    const forged = forgeCopy(chain, open, (data) => (data[129] = 2));
    expectRefused(chain.send([await chain.reclaimBetIx(forged, attacker)], [chain.relayer]), 'InvalidPda');
    expectRefused(chain.send([await chain.reclaimBetIx(bet, victim, { bettorState: attacker.state })], [chain.relayer]), 'BettorMismatch');
    expect(chain.readBet(open).status).toBe(0);
  });

  it('cannot close a bettor state with an open bet, unreclaimed bets, or a forged idle copy', async () => {
    expectRefused(chain.send([await chain.closeBettorIx(victim)], [chain.relayer]), 'BettorNotIdle');
    const idle = forgeCopy(chain, victim.state, (data) => data.fill(0, 81, 89));
    expectRefused(chain.send([await chain.closeBettorIx(victim, { bettorState: idle })], [chain.relayer]), 'InvalidPda');
    await chain.placeBet(attacker, 0, STAKE, PRICE);
    expectRefused(chain.send([await chain.closeBettorIx(attacker)], [chain.relayer]), 'BettorNotIdle');
    expect(chain.readBettorState(victim)).toMatchObject({ bet_count: 1n, reclaimed: 0n });
  });
});

describe('admin instructions: attacker', () => {
  beforeEach(async () => {
    chain = new BetChain();
    await chain.setUp(DEFAULT_PARAMS, 10_000_000_000n);
  });

  it('set_paused: not as a stranger, the relayer, or without the admin signature', async () => {
    const thief = stranger(chain);
    expectRefused(chain.send([await chain.setPausedIx(1, { admin: thief.publicKey })], [thief]), 'Unauthorized');
    expectRefused(chain.send([await chain.setPausedIx(1, { admin: chain.relayer.publicKey })], [chain.relayer]), 'Unauthorized');
    expectRefused(chain.send([patchAccount(await chain.setPausedIx(1), 'set_paused', 'admin', { isSigner: false })], [thief]), 'MissingSignature');
    expect(chain.readConfig().paused).toBe(0);
  });

  it('set_paused: not through a forged config naming it admin, or another program account', async () => {
    const thief = stranger(chain);
    const forged = forgeCopy(chain, chain.config, (data) => data.set(thief.publicKey.toBytes(), 8));
    expectRefused(chain.send([await chain.setPausedIx(1, { config: forged, admin: thief.publicKey })], [thief]), 'InvalidPda');
    const ata = getAssociatedTokenAddressSync(chain.mint, chain.config, true);
    expectRefused(chain.send([await chain.setPausedIx(1, { config: ata })], [chain.admin]), 'InvalidAccountOwner');
    expectRefused(chain.send([patchAccount(await chain.setPausedIx(1), 'set_paused', 'config', { isWritable: false })], [chain.admin]), 'AccountNotWritable');
    expect(chain.readConfig().paused).toBe(0);
  });

  it('set_relayer: not signed by the relayer (it cannot name itself or a friend), a stranger, or unsigned', async () => {
    const thief = stranger(chain);
    expectRefused(chain.send([await chain.setRelayerIx(thief.publicKey, { admin: chain.relayer.publicKey })], [chain.relayer]), 'Unauthorized');
    expectRefused(chain.send([await chain.setRelayerIx(thief.publicKey, { admin: thief.publicKey })], [thief]), 'Unauthorized');
    expectRefused(
      chain.send([patchAccount(await chain.setRelayerIx(thief.publicKey), 'set_relayer', 'admin', { isSigner: false })], [thief]),
      'MissingSignature',
    );
    const forged = forgeCopy(chain, chain.config, (data) => data.set(thief.publicKey.toBytes(), 8));
    expectRefused(chain.send([await chain.setRelayerIx(thief.publicKey, { config: forged, admin: thief.publicKey })], [thief]), 'InvalidPda');
    expect(chain.readConfig().relayer.equals(chain.relayer.publicKey)).toBe(true);
  });

  it('propose_admin: not by the relayer, a stranger, the pending admin, or unsigned', async () => {
    const thief = stranger(chain);
    expectRefused(chain.send([await chain.proposeAdminIx(thief.publicKey, { admin: chain.relayer.publicKey })], [chain.relayer]), 'Unauthorized');
    expectRefused(chain.send([await chain.proposeAdminIx(thief.publicKey, { admin: thief.publicKey })], [thief]), 'Unauthorized');
    expectRefused(
      chain.send([patchAccount(await chain.proposeAdminIx(thief.publicKey), 'propose_admin', 'admin', { isSigner: false })], [thief]),
      'MissingSignature',
    );
    const successor = stranger(chain);
    chain.mustSend([await chain.proposeAdminIx(successor.publicKey)], [chain.admin]);
    expectRefused(chain.send([await chain.proposeAdminIx(thief.publicKey, { admin: successor.publicKey })], [successor]), 'Unauthorized');
    expect(chain.readConfig().pending_admin.equals(successor.publicKey)).toBe(true);
  });

  it('accept_admin: not by a key that is not pending (stranger, relayer, the admin), nor unsigned', async () => {
    const successor = stranger(chain);
    const thief = stranger(chain);
    chain.mustSend([await chain.proposeAdminIx(successor.publicKey)], [chain.admin]);
    expectRefused(chain.send([await chain.acceptAdminIx(thief.publicKey)], [thief]), 'NotPendingAdmin');
    expectRefused(chain.send([await chain.acceptAdminIx(chain.relayer.publicKey)], [chain.relayer]), 'NotPendingAdmin');
    expectRefused(chain.send([await chain.acceptAdminIx(chain.admin.publicKey)], [chain.admin]), 'NotPendingAdmin');
    expectRefused(
      chain.send([patchAccount(await chain.acceptAdminIx(successor.publicKey), 'accept_admin', 'new_admin', { isSigner: false })], [thief]),
      'MissingSignature',
    );
    // After a cancel, the once-proposed key cannot accept.
    chain.mustSend([await chain.proposeAdminIx(PublicKey.default)], [chain.admin]);
    expectRefused(chain.send([await chain.acceptAdminIx(successor.publicKey)], [successor]), 'NoPendingAdmin');
    expect(chain.readConfig().admin.equals(chain.admin.publicKey)).toBe(true);
  });

  it('withdraw: not by the relayer or a stranger, not unsigned, not from a fake vault, not in another mint', async () => {
    const thief = stranger(chain);
    const sink = tokenAccountAt(chain, thief.publicKey, chain.mint);
    expectRefused(chain.send([await chain.withdrawIx(1n, sink, { admin: chain.relayer.publicKey })], [chain.relayer]), 'Unauthorized');
    expectRefused(chain.send([await chain.withdrawIx(1n, sink, { admin: thief.publicKey })], [thief]), 'Unauthorized');
    expectRefused(chain.send([patchAccount(await chain.withdrawIx(1n, sink), 'withdraw', 'admin', { isSigner: false })], [thief]), 'MissingSignature');
    const forged = forgeCopy(chain, chain.config, (data) => data.set(thief.publicKey.toBytes(), 8));
    expectRefused(chain.send([await chain.withdrawIx(1n, sink, { config: forged, admin: thief.publicKey })], [thief]), 'InvalidPda');
    const fakeVault = tokenAccountAt(chain, chain.config, chain.mint, 5_000n);
    expectRefused(chain.send([await chain.withdrawIx(1n, sink, { vault: fakeVault })], [chain.admin]), 'InvalidVault');
    const foreign = tokenAccountAt(chain, chain.admin.publicKey, newChain().mint);
    expectRefused(chain.send([await chain.withdrawIx(1n, foreign)], [chain.admin]), 'InvalidMint');
    expect(chain.tokenBalance(sink)).toBe(0n);
  });

  it('withdraw: not into the open liability, however it is split', async () => {
    const bettor = chain.newBettor();
    await chain.placeBet(bettor, 0, STAKE, PRICE);
    const sink = tokenAccountAt(chain, chain.admin.publicKey, chain.mint);
    const free = chain.tokenBalance(chain.vault) - chain.readConfig().open_liability;
    chain.mustSend([await chain.withdrawIx(free / 2n, sink)], [chain.admin]);
    const rest = free - free / 2n;
    expectRefused(chain.send([await chain.withdrawIx(rest + 1n, sink)], [chain.admin]), 'WithdrawBelowLiability');
    chain.mustSend([await chain.withdrawIx(rest, sink)], [chain.admin]);
    expectRefused(chain.send([await chain.withdrawIx(1n, sink)], [chain.admin]), 'WithdrawBelowLiability');
    expect(chain.tokenBalance(chain.vault)).toBe(chain.readConfig().open_liability);
  });
});
