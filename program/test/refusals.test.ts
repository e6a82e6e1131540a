/**
 * Every custom error code of the program (IDL errors 6000..6027) is reachable, each from its
 * own check, and a refused transaction changes nothing.
 */
import { Keypair, TransactionInstruction } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { ERRORS, PROGRAM_ID, betPda } from '../index.ts';
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

async function placeArgs(chain: BetChain, bettor: Bettor, over: Partial<{ id: bigint; side: number; amount: bigint; entryPrice: bigint }> = {}) {
  const args = { id: chain.readConfig().next_bet_id, side: 0, amount: STAKE, entryPrice: PRICE, ...over };
  return chain.placeBetIx(bettor, args);
}

describe('refusals: one distinct code per check', () => {
  const reached = new Set<string>();
  const refused = (sent: Parameters<typeof expectRefused>[0], name: string): void => {
    expectRefused(sent, name);
    reached.add(name);
  };

  it('AlreadyInitialized: a second initialize', async () => {
    const { chain } = await ready();
    refused(chain.send([await chain.initializeIx()], [chain.admin]), 'AlreadyInitialized');
  });

  it('NotInitialized: set_paused and place_bet before initialize', async () => {
    const chain = new BetChain();
    chain.createMintAndVault();
    refused(chain.send([await chain.setPausedIx(1)], [chain.admin]), 'NotInitialized');
    const bettor = chain.newBettor();
    refused(chain.send([await chain.placeBetIx(bettor, { id: 1n, side: 0, amount: STAKE, entryPrice: PRICE })], [chain.relayer, bettor.key]), 'NotInitialized');
  });

  it('Unauthorized: a stranger as admin or relayer', async () => {
    const { chain, bettor } = await ready();
    const stranger = Keypair.generate();
    chain.airdrop(stranger.publicKey, 10_000_000_000n);
    refused(chain.send([await chain.setPausedIx(1, { admin: stranger.publicKey })], [stranger]), 'Unauthorized');
    const ix = await chain.placeBetIx(bettor, { id: 1n, side: 0, amount: STAKE, entryPrice: PRICE }, { accounts: { relayer: stranger.publicKey } });
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

  it('InvalidPda: a bet address for another id, a config that is not the PDA', async () => {
    const { chain, bettor } = await ready();
    const wrongBet = await placeArgs(chain, bettor);
    patchAccount(wrongBet, 'place_bet', 'bet', { pubkey: betPda(2n)[0] });
    refused(chain.send([wrongBet], [chain.relayer, bettor.key]), 'InvalidPda');
    const forgedConfig = forgeCopy(chain, chain.config);
    refused(chain.send([await chain.setPausedIx(1, { config: forgedConfig })], [chain.admin]), 'InvalidPda');
  });

  it('InvalidAccountOwner: a config owned by another program, a wallet as token account', async () => {
    const { chain, bettor } = await ready();
    refused(chain.send([await chain.setPausedIx(1, { config: chain.mint })], [chain.admin]), 'InvalidAccountOwner');
    const ix = await chain.placeBetIx(bettor, { id: 1n, side: 0, amount: STAKE, entryPrice: PRICE }, { accounts: { bettorToken: bettor.key.publicKey } });
    refused(chain.send([ix], [chain.relayer, bettor.key]), 'InvalidAccountOwner');
  });

  it('InvalidMint: stake from a token account of another mint', async () => {
    const { chain, bettor } = await ready();
    const otherMint = Keypair.generate().publicKey;
    const foreign = tokenAccountAt(chain, bettor.key.publicKey, otherMint, STAKE * 10n);
    const ix = await chain.placeBetIx(bettor, { id: 1n, side: 0, amount: STAKE, entryPrice: PRICE }, { accounts: { bettorToken: foreign } });
    refused(chain.send([ix], [chain.relayer, bettor.key]), 'InvalidMint');
  });

  it("InvalidTokenOwner: stake from someone else's token account", async () => {
    const { chain, bettor } = await ready();
    const victim = chain.newBettor();
    const ix = await chain.placeBetIx(bettor, { id: 1n, side: 0, amount: STAKE, entryPrice: PRICE }, { accounts: { bettorToken: victim.token } });
    refused(chain.send([ix], [chain.relayer, bettor.key]), 'InvalidTokenOwner');
    expect(chain.tokenBalance(victim.token)).toBe(100_000_000_000n);
  });

  it('InvalidVault: a token account of the right mint that is not the vault', async () => {
    const { chain, bettor } = await ready();
    const fake = tokenAccountAt(chain, chain.relayer.publicKey, chain.mint);
    const ix = await chain.placeBetIx(bettor, { id: 1n, side: 0, amount: STAKE, entryPrice: PRICE }, { accounts: { vault: fake } });
    refused(chain.send([ix], [chain.relayer, bettor.key]), 'InvalidVault');
  });

  it('InvalidProgramId: a token program account that is not SPL Token', async () => {
    const { chain, bettor } = await ready();
    const ix = await chain.placeBetIx(bettor, { id: 1n, side: 0, amount: STAKE, entryPrice: PRICE }, { accounts: { tokenProgram: PROGRAM_ID } });
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

  it('InvalidParameters: min 0, max < min, multiplier below 1x, expiry 0', async () => {
    for (const params of [
      { ...DEFAULT_PARAMS, minAmount: 0n },
      { ...DEFAULT_PARAMS, maxAmount: DEFAULT_PARAMS.minAmount - 1n },
      { ...DEFAULT_PARAMS, multiplierBps: 9_999n },
      { ...DEFAULT_PARAMS, expirySeconds: 0n },
    ]) {
      const chain = new BetChain();
      chain.createMintAndVault();
      refused(chain.send([await chain.initializeIx(params)], [chain.admin]), 'InvalidParameters');
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
    const { id } = await chain.placeBet(bettor, 0, STAKE, PRICE);
    chain.setTime(chain.now() + DEFAULT_PARAMS.expirySeconds);
    refused(chain.send([await chain.closeBetIx(id, bettor, 0n)], [chain.relayer]), 'InvalidPrice');
  });

  it('BetIdMismatch: an id other than next_bet_id', async () => {
    const { chain, bettor } = await ready();
    const ix = await placeArgs(chain, bettor, { id: 2n });
    refused(chain.send([ix], [chain.relayer, bettor.key]), 'BetIdMismatch');
  });

  it('OpenBetExists, BetNotExpired, BetAlreadyClosed', async () => {
    const { chain, bettor } = await ready();
    const { id } = await chain.placeBet(bettor, 0, STAKE, PRICE);
    refused(chain.send([await placeArgs(chain, bettor)], [chain.relayer, bettor.key]), 'OpenBetExists');
    chain.setTime(chain.now() + DEFAULT_PARAMS.expirySeconds - 1n);
    refused(chain.send([await chain.closeBetIx(id, bettor, PRICE)], [chain.relayer]), 'BetNotExpired');
    chain.setTime(chain.now() + 1n);
    chain.mustSend([await chain.closeBetIx(id, bettor, PRICE)], [chain.relayer]);
    refused(chain.send([await chain.closeBetIx(id, bettor, PRICE)], [chain.relayer]), 'BetAlreadyClosed');
  });

  it("BettorMismatch: a payout sent to another bettor's token account", async () => {
    const { chain, bettor } = await ready();
    const thief = chain.newBettor();
    const { id } = await chain.placeBet(bettor, 0, STAKE, PRICE);
    chain.setTime(chain.now() + DEFAULT_PARAMS.expirySeconds);
    refused(chain.send([await chain.closeBetIx(id, bettor, PRICE + 1n, { bettorToken: thief.token })], [chain.relayer]), 'BettorMismatch');
  });

  it('InvalidAccountData: a bet account passed as config', async () => {
    const { chain, bettor } = await ready();
    const { id } = await chain.placeBet(bettor, 0, STAKE, PRICE);
    refused(chain.send([await chain.setPausedIx(1, { config: betPda(id)[0] })], [chain.admin]), 'InvalidAccountData');
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
    const args = { id: 1n, side: 0, amount: STAKE, entryPrice: PRICE };
    refused(chain.send([await chain.placeBetIx(bettor, args, { delegated: true })], [chain.relayer]), 'DelegateMissing');
    chain.approveRelayer(bettor, STAKE - 1n);
    refused(chain.send([await chain.placeBetIx(bettor, args, { delegated: true })], [chain.relayer]), 'DelegateMissing');
  });

  it('VaultInsufficient: a win larger than the vault', async () => {
    const { chain, bettor } = await ready(DEFAULT_PARAMS, 0n);
    const { id } = await chain.placeBet(bettor, 0, STAKE, PRICE);
    chain.setTime(chain.now() + DEFAULT_PARAMS.expirySeconds);
    refused(chain.send([await chain.closeBetIx(id, bettor, PRICE + 1n)], [chain.relayer]), 'VaultInsufficient');
    expect(chain.readBet(id).status).toBe(0);
  });

  it('a refused transaction changes nothing', async () => {
    const { chain, bettor } = await ready();
    const before = [chain.readAccount(chain.config)?.data, chain.tokenBalance(bettor.token), chain.tokenBalance(chain.vault)];
    refused(chain.send([await placeArgs(chain, bettor, { side: 5 })], [chain.relayer, bettor.key]), 'InvalidSide');
    expect([chain.readAccount(chain.config)?.data, chain.tokenBalance(bettor.token), chain.tokenBalance(chain.vault)]).toEqual(before);
    expect(chain.readAccount(bettor.state)).toBeNull();
  });

  it('every IDL error was reached above', () => {
    expect([...reached].sort()).toEqual(ERRORS.map((e) => e.name).sort());
  });
});
