/**
 * Every custom error code of the program (IDL errors 6000..6039) is reachable, each from its
 * own check, except the reserved 6018 that no check raises any more; a refused transaction
 * changes nothing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Keypair, type PublicKey, TransactionInstruction } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { ERRORS, PROGRAM_ID } from '../index.ts';
import { forgeCopy, tokenAccountAt } from './forge.ts';
import { expectRefused } from './refusal.ts';
import { BetChain, DEFAULT_PARAMS, patchAccount, type Bettor } from './svm.ts';

const STAKE = 1_000_000_000n;
const PRICE = 15_000_000_000n;
const U64_MAX = 2n ** 64n - 1n;

async function ready(params = DEFAULT_PARAMS, vaultFunds?: bigint): Promise<{ chain: BetChain; bettor: Bettor }> {
  const chain = new BetChain();
  await chain.setUp(params, vaultFunds);
  return { chain, bettor: chain.newBettor() };
}

async function placeArgs(chain: BetChain, bettor: Bettor, over: Partial<{ side: number; amount: bigint; entryPrice: bigint }> = {}) {
  return chain.placeBetIx(bettor, { side: 0, amount: STAKE, entryPrice: PRICE, ...over });
}

/** A settled (lost) bet of `bettor`. */
async function settledBet(chain: BetChain, bettor: Bettor): Promise<PublicKey> {
  const { bet } = await chain.placeBet(bettor, 0, STAKE, PRICE);
  chain.setTime(chain.now() + DEFAULT_PARAMS.expirySeconds);
  chain.mustSend([await chain.closeBetIx(bet, bettor, PRICE - 1n)], [chain.relayer]);
  return bet;
}

describe('refusals: one distinct code per check', () => {
  const reached = new Set<string>();
  const refused = (sent: Parameters<typeof expectRefused>[0], name: string): void => {
    expectRefused(sent, name);
    reached.add(name);
  };

  it('AlreadyInitialized: a second initialize', async () => {
    const { chain } = await ready();
    refused(chain.send([await chain.initializeIx()], [chain.authority]), 'AlreadyInitialized');
  });

  it('NotInitialized: set_paused and place_bet before initialize', async () => {
    const chain = new BetChain();
    chain.createMintAndVault();
    refused(chain.send([await chain.setPausedIx(1)], [chain.admin]), 'NotInitialized');
    const bettor = chain.newBettor();
    refused(chain.send([await chain.placeBetIx(bettor, { side: 0, amount: STAKE, entryPrice: PRICE })], [chain.relayer, bettor.key]), 'NotInitialized');
  });

  it('Unauthorized: a stranger as admin or relayer', async () => {
    const { chain, bettor } = await ready();
    const stranger = Keypair.generate();
    chain.airdrop(stranger.publicKey, 10_000_000_000n);
    refused(chain.send([await chain.setPausedIx(1, { admin: stranger.publicKey })], [stranger]), 'Unauthorized');
    const ix = await chain.placeBetIx(bettor, { side: 0, amount: STAKE, entryPrice: PRICE }, { accounts: { relayer: stranger.publicKey } });
    refused(chain.send([ix], [stranger, bettor.key]), 'Unauthorized');
  });

  it('MissingSignature: bettor, relayer or admin did not sign', async () => {
    const { chain, bettor } = await ready();
    const noBettor = patchAccount(await placeArgs(chain, bettor), 'place_bet', 'bettor', { isSigner: false });
    refused(chain.send([noBettor], [chain.relayer]), 'MissingSignature');
    const noRelayer = patchAccount(await placeArgs(chain, bettor), 'place_bet', 'relayer', { isSigner: false });
    refused(chain.send([noRelayer], [bettor.key]), 'MissingSignature');
    const noAdmin = patchAccount(await chain.setPausedIx(1), 'set_paused', 'admin', { isSigner: false });
    refused(chain.send([noAdmin], [chain.relayer]), 'MissingSignature');
  });

  it('InvalidPda: a bet address for another seq or bettor, a config that is not the PDA', async () => {
    const { chain, bettor } = await ready();
    const nextSeq = await chain.placeBetIx(bettor, { side: 0, amount: STAKE, entryPrice: PRICE }, { seq: 1n });
    refused(chain.send([nextSeq], [chain.relayer, bettor.key]), 'InvalidPda');
    const otherBettor = await chain.placeBetIx(
      bettor,
      { side: 0, amount: STAKE, entryPrice: PRICE },
      { accounts: { bet: chain.betAddress(chain.newBettor(), 0n) } },
    );
    refused(chain.send([otherBettor], [chain.relayer, bettor.key]), 'InvalidPda');
    const forgedConfig = forgeCopy(chain, chain.config);
    refused(chain.send([await chain.setPausedIx(1, { config: forgedConfig })], [chain.admin]), 'InvalidPda');
  });

  it('InvalidAccountOwner: a config owned by another program, a wallet as token account', async () => {
    const { chain, bettor } = await ready();
    refused(chain.send([await chain.setPausedIx(1, { config: chain.mint })], [chain.admin]), 'InvalidAccountOwner');
    const ix = await chain.placeBetIx(bettor, { side: 0, amount: STAKE, entryPrice: PRICE }, { accounts: { bettorToken: bettor.key.publicKey } });
    refused(chain.send([ix], [chain.relayer, bettor.key]), 'InvalidAccountOwner');
  });

  it('InvalidMint: stake from a token account of another mint', async () => {
    const { chain, bettor } = await ready();
    const otherMint = Keypair.generate().publicKey;
    const foreign = tokenAccountAt(chain, bettor.key.publicKey, otherMint, STAKE * 10n);
    const ix = await chain.placeBetIx(bettor, { side: 0, amount: STAKE, entryPrice: PRICE }, { accounts: { bettorToken: foreign } });
    refused(chain.send([ix], [chain.relayer, bettor.key]), 'InvalidMint');
  });

  it("InvalidTokenOwner: stake from someone else's token account", async () => {
    const { chain, bettor } = await ready();
    const victim = chain.newBettor();
    const ix = await chain.placeBetIx(bettor, { side: 0, amount: STAKE, entryPrice: PRICE }, { accounts: { bettorToken: victim.token } });
    refused(chain.send([ix], [chain.relayer, bettor.key]), 'InvalidTokenOwner');
    expect(chain.tokenBalance(victim.token)).toBe(100_000_000_000n);
  });

  it('InvalidVault: a token account of the right mint that is not the vault', async () => {
    const { chain, bettor } = await ready();
    const fake = tokenAccountAt(chain, chain.relayer.publicKey, chain.mint);
    const ix = await chain.placeBetIx(bettor, { side: 0, amount: STAKE, entryPrice: PRICE }, { accounts: { vault: fake } });
    refused(chain.send([ix], [chain.relayer, bettor.key]), 'InvalidVault');
  });

  it('InvalidProgramId: a token program account that is not SPL Token', async () => {
    const { chain, bettor } = await ready();
    const ix = await chain.placeBetIx(bettor, { side: 0, amount: STAKE, entryPrice: PRICE }, { accounts: { tokenProgram: PROGRAM_ID } });
    refused(chain.send([ix], [chain.relayer, bettor.key]), 'InvalidProgramId');
  });

  it('AccountNotWritable: the bet account passed read-only', async () => {
    const { chain, bettor } = await ready();
    const ix = patchAccount(await placeArgs(chain, bettor), 'place_bet', 'bet', { isWritable: false });
    refused(chain.send([ix], [chain.relayer, bettor.key]), 'AccountNotWritable');
  });

  it('InvalidInstructionData: unknown discriminator, short data, paused flag 2', async () => {
    const { chain } = await ready();
    const base = await chain.setPausedIx(1);
    const unknown = new TransactionInstruction({ programId: PROGRAM_ID, keys: base.keys, data: Buffer.alloc(9, 7) });
    refused(chain.send([unknown], [chain.admin]), 'InvalidInstructionData');
    const short = new TransactionInstruction({ programId: PROGRAM_ID, keys: base.keys, data: base.data.subarray(0, 8) });
    refused(chain.send([short], [chain.admin]), 'InvalidInstructionData');
    refused(chain.send([await chain.setPausedIx(2)], [chain.admin]), 'InvalidInstructionData');
  });

  it('InvalidParameters: min 0, max < min, multiplier below 1x, expiry 0, refund delay 0 or negative', async () => {
    for (const params of [
      { ...DEFAULT_PARAMS, minAmount: 0n },
      { ...DEFAULT_PARAMS, maxAmount: DEFAULT_PARAMS.minAmount - 1n },
      { ...DEFAULT_PARAMS, multiplierBps: 9_999n },
      { ...DEFAULT_PARAMS, expirySeconds: 0n },
      { ...DEFAULT_PARAMS, refundAfterSeconds: 0n },
      { ...DEFAULT_PARAMS, refundAfterSeconds: -1n },
    ]) {
      const chain = new BetChain();
      chain.createMintAndVault();
      refused(chain.send([await chain.initializeIx(params)], [chain.authority]), 'InvalidParameters');
    }
  });

  it('Paused: no bet while paused, bets again after resume', async () => {
    const { chain, bettor } = await ready();
    chain.mustSend([await chain.setPausedIx(1)], [chain.admin]);
    refused(chain.send([await placeArgs(chain, bettor)], [chain.relayer, bettor.key]), 'Paused');
    chain.mustSend([await chain.setPausedIx(0)], [chain.admin]);
    chain.mustSend([await placeArgs(chain, bettor)], [chain.relayer, bettor.key]);
  });

  it('AmountTooSmall / AmountTooLarge: outside min..max, the bounds themselves accepted', async () => {
    const { chain, bettor } = await ready();
    refused(chain.send([await placeArgs(chain, bettor, { amount: DEFAULT_PARAMS.minAmount - 1n })], [chain.relayer, bettor.key]), 'AmountTooSmall');
    refused(chain.send([await placeArgs(chain, bettor, { amount: DEFAULT_PARAMS.maxAmount + 1n })], [chain.relayer, bettor.key]), 'AmountTooLarge');
    chain.mustSend([await placeArgs(chain, bettor, { amount: DEFAULT_PARAMS.maxAmount })], [chain.relayer, bettor.key]);
    const other = chain.newBettor();
    chain.mustSend([await placeArgs(chain, other, { amount: DEFAULT_PARAMS.minAmount })], [chain.relayer, other.key]);
  });

  it('InvalidSide and InvalidPrice', async () => {
    const { chain, bettor } = await ready();
    refused(chain.send([await placeArgs(chain, bettor, { side: 2 })], [chain.relayer, bettor.key]), 'InvalidSide');
    refused(chain.send([await placeArgs(chain, bettor, { entryPrice: 0n })], [chain.relayer, bettor.key]), 'InvalidPrice');
    const { bet } = await chain.placeBet(bettor, 0, STAKE, PRICE);
    chain.setTime(chain.now() + DEFAULT_PARAMS.expirySeconds);
    refused(chain.send([await chain.closeBetIx(bet, bettor, 0n)], [chain.relayer]), 'InvalidPrice');
  });

  it('BetIdMismatch (6018) is reserved: no C source raises it any more, and the IDL says so', () => {
    const src = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');
    const raising = readdirSync(src)
      .filter((f) => f.endsWith('.c'))
      .filter((f) => readFileSync(join(src, f), 'utf8').includes('ERR_BET_ID_MISMATCH'));
    expect(raising).toEqual([]);
    expect(ERRORS.find((e) => e.code === 6018)).toMatchObject({ name: 'BetIdMismatch', msg: expect.stringMatching(/^Reserved/) });
  });

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

  it("BettorMismatch: a payout sent to another bettor's token account", async () => {
    const { chain, bettor } = await ready();
    const thief = chain.newBettor();
    const { bet } = await chain.placeBet(bettor, 0, STAKE, PRICE);
    chain.setTime(chain.now() + DEFAULT_PARAMS.expirySeconds);
    refused(chain.send([await chain.closeBetIx(bet, bettor, PRICE + 1n, { bettorToken: thief.token })], [chain.relayer]), 'BettorMismatch');
  });

  it('InvalidAccountData: a bet account passed as config', async () => {
    const { chain, bettor } = await ready();
    const { bet } = await chain.placeBet(bettor, 0, STAKE, PRICE);
    refused(chain.send([await chain.setPausedIx(1, { config: bet })], [chain.admin]), 'InvalidAccountData');
  });

  it('MathOverflow: a stake whose payout would not fit in u64', async () => {
    const { chain, bettor } = await ready({ ...DEFAULT_PARAMS, maxAmount: U64_MAX });
    refused(chain.send([await placeArgs(chain, bettor, { amount: U64_MAX / 13_000n + 1n })], [chain.relayer, bettor.key]), 'MathOverflow');
  });

  it('NotEnoughAccounts: set_paused without the admin account', async () => {
    const { chain } = await ready();
    const ix = await chain.setPausedIx(1);
    const cut = new TransactionInstruction({ programId: PROGRAM_ID, keys: ix.keys.slice(0, 1), data: ix.data });
    refused(chain.send([cut], [chain.admin]), 'NotEnoughAccounts');
  });

  it('DelegateMissing: a delegated bet without (enough) allowance', async () => {
    const { chain, bettor } = await ready();
    const args = { side: 0, amount: STAKE, entryPrice: PRICE };
    refused(chain.send([await chain.placeBetIx(bettor, args, { delegated: true })], [chain.relayer]), 'DelegateMissing');
    chain.approveRelayer(bettor, STAKE - 1n);
    refused(chain.send([await chain.placeBetIx(bettor, args, { delegated: true })], [chain.relayer]), 'DelegateMissing');
  });

  it('VaultInsufficient: a withdrawal larger than the vault', async () => {
    const { chain } = await ready(DEFAULT_PARAMS, 1_000n);
    const destination = tokenAccountAt(chain, chain.admin.publicKey, chain.mint);
    refused(chain.send([await chain.withdrawIx(1_001n, destination)], [chain.admin]), 'VaultInsufficient');
    expect(chain.tokenBalance(chain.vault)).toBe(1_000n);
  });

  it('RolesNotDistinct: initialize, set_relayer, propose_admin and accept_admin keep admin and relayer apart', async () => {
    const fresh = new BetChain();
    fresh.createMintAndVault();
    refused(fresh.send([await fresh.initializeIx(DEFAULT_PARAMS, { relayer: fresh.admin.publicKey })], [fresh.authority]), 'RolesNotDistinct');

    const { chain } = await ready();
    refused(chain.send([await chain.setRelayerIx(chain.admin.publicKey)], [chain.admin]), 'RolesNotDistinct');
    refused(chain.send([await chain.proposeAdminIx(chain.relayer.publicKey)], [chain.admin]), 'RolesNotDistinct');
    // The proposed admin becomes the relayer before accepting: accepting would merge the roles.
    const successor = Keypair.generate();
    chain.airdrop(successor.publicKey, 1_000_000_000n);
    chain.mustSend([await chain.proposeAdminIx(successor.publicKey)], [chain.admin]);
    chain.mustSend([await chain.setRelayerIx(successor.publicKey)], [chain.admin]);
    refused(chain.send([await chain.acceptAdminIx(successor.publicKey)], [successor]), 'RolesNotDistinct');
    expect(chain.readConfig().admin.equals(chain.admin.publicKey)).toBe(true);
  });

  it('InvalidProgramAccount / InvalidProgramData / NotUpgradeAuthority: initialize checks the upgrade authority', async () => {
    const chain = new BetChain();
    chain.createMintAndVault();
    refused(chain.send([await chain.initializeIx(DEFAULT_PARAMS, { program: chain.mint })], [chain.authority]), 'InvalidProgramAccount');
    refused(chain.send([await chain.initializeIx(DEFAULT_PARAMS, { programData: chain.vault })], [chain.authority]), 'InvalidProgramData');
    const stranger = Keypair.generate();
    chain.airdrop(stranger.publicKey, 10_000_000_000n);
    refused(chain.send([await chain.initializeIx(DEFAULT_PARAMS, { authority: stranger.publicKey })], [stranger]), 'NotUpgradeAuthority');
    expect(chain.readAccount(chain.config)).toBeNull();
  });

  it('NoPendingAdmin / NotPendingAdmin: accept_admin with nothing pending or by another key', async () => {
    const { chain } = await ready();
    const successor = Keypair.generate();
    const stranger = Keypair.generate();
    for (const k of [successor, stranger]) chain.airdrop(k.publicKey, 1_000_000_000n);
    refused(chain.send([await chain.acceptAdminIx(successor.publicKey)], [successor]), 'NoPendingAdmin');
    chain.mustSend([await chain.proposeAdminIx(successor.publicKey)], [chain.admin]);
    refused(chain.send([await chain.acceptAdminIx(stranger.publicKey)], [stranger]), 'NotPendingAdmin');
    refused(chain.send([await chain.acceptAdminIx(chain.admin.publicKey)], [chain.admin]), 'NotPendingAdmin');
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

  it('PayerMismatch: rent of a bet or bettor state sent to someone other than its payer', async () => {
    const { chain, bettor } = await ready();
    const bet = await settledBet(chain, bettor);
    const thief = Keypair.generate().publicKey;
    refused(chain.send([await chain.reclaimBetIx(bet, bettor, { payer: thief })], [chain.relayer]), 'PayerMismatch');
    chain.mustSend([await chain.reclaimBetIx(bet, bettor)], [chain.relayer]);
    refused(chain.send([await chain.closeBettorIx(bettor, { payer: thief })], [chain.relayer]), 'PayerMismatch');
    expect(chain.readAccount(thief)).toBeNull();
  });

  it('a refused transaction changes nothing', async () => {
    const { chain, bettor } = await ready();
    const before = [chain.readAccount(chain.config)?.data, chain.tokenBalance(bettor.token), chain.tokenBalance(chain.vault)];
    refused(chain.send([await placeArgs(chain, bettor, { side: 5 })], [chain.relayer, bettor.key]), 'InvalidSide');
    expect([chain.readAccount(chain.config)?.data, chain.tokenBalance(bettor.token), chain.tokenBalance(chain.vault)]).toEqual(before);
    expect(chain.readAccount(bettor.state)).toBeNull();
  });

  it('every IDL error was reached above, except the reserved BetIdMismatch', () => {
    const expected = ERRORS.map((e) => e.name).filter((name) => name !== 'BetIdMismatch');
    expect([...reached].sort()).toEqual(expected.sort());
  });
});
