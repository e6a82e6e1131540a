/**
 * Refusals of what a bet placement carries: instruction data, the pause, amounts, side and
 * price, payouts that overflow, delegate allowances, and the reserved BetIdMismatch.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TransactionInstruction } from '@solana/web3.js';
import { expect, it } from 'vitest';
import { ERRORS, PROGRAM_ID } from '../../index.ts';
import { DEFAULT_PARAMS } from '../svm.ts';
import { STAKE, PRICE, U64_MAX, ready, placeArgs, type Refused } from './support.ts';

/** Registers the tests (inside the refusals describe). */
export function placementRefusals(refused: Refused): void {
  it('InvalidInstructionData: unknown discriminator, short data, paused flag 2', async () => {
    const { chain } = await ready();
    const base = await chain.setPausedIx(1);
    const unknown = new TransactionInstruction({ programId: PROGRAM_ID, keys: base.keys, data: Buffer.alloc(9, 7) });
    refused(chain.send([unknown], [chain.admin]), 'InvalidInstructionData');
    const short = new TransactionInstruction({ programId: PROGRAM_ID, keys: base.keys, data: base.data.subarray(0, 8) });
    refused(chain.send([short], [chain.admin]), 'InvalidInstructionData');
    refused(chain.send([await chain.setPausedIx(2)], [chain.admin]), 'InvalidInstructionData');
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
    const src = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');
    const raising = readdirSync(src)
      .filter((f) => f.endsWith('.c'))
      .filter((f) => readFileSync(join(src, f), 'utf8').includes('ERR_BET_ID_MISMATCH'));
    expect(raising).toEqual([]);
    expect(ERRORS.find((e) => e.code === 6018)).toMatchObject({ name: 'BetIdMismatch', msg: expect.stringMatching(/^Reserved/) });
  });

  it('MathOverflow: a stake whose payout would not fit in u64', async () => {
    const { chain, bettor } = await ready({ ...DEFAULT_PARAMS, maxAmount: U64_MAX });
    refused(chain.send([await placeArgs(chain, bettor, { amount: U64_MAX / 13_000n + 1n })], [chain.relayer, bettor.key]), 'MathOverflow');
  });

  it('DelegateMissing: a delegated bet without (enough) allowance', async () => {
    const { chain, bettor } = await ready();
    const args = { side: 0, amount: STAKE, entryPrice: PRICE };
    refused(chain.send(await chain.delegatedIxs(bettor, args), [chain.relayer]), 'DelegateMissing');
    chain.approveRelayer(bettor, STAKE - 1n);
    refused(chain.send(await chain.delegatedIxs(bettor, args), [chain.relayer]), 'DelegateMissing');
  });
}
