/**
 * Refusals of the accounts a transaction passes: signers, PDAs, owners, mints, the vault, the
 * token program, writability, account data, missing accounts, and payouts or rent sent elsewhere.
 */
import { Keypair, TransactionInstruction } from '@solana/web3.js';
import { expect, it } from 'vitest';
import { PROGRAM_ID } from '../../index.ts';
import { forgeCopy, tokenAccountAt } from '../forge.ts';
import { DEFAULT_PARAMS, patchAccount } from '../svm.ts';
import { STAKE, PRICE, ready, placeArgs, settledBet, type Refused } from './support.ts';

/** Registers the tests (inside the refusals describe). */
export function accountRefusals(refused: Refused): void {
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

  it('NotEnoughAccounts: set_paused without the admin account', async () => {
    const { chain } = await ready();
    const ix = await chain.setPausedIx(1);
    const cut = new TransactionInstruction({ programId: PROGRAM_ID, keys: ix.keys.slice(0, 1), data: ix.data });
    refused(chain.send([cut], [chain.admin]), 'NotEnoughAccounts');
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
}
