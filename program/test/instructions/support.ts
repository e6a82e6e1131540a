/**
 * What the instruction tests share: stake, price, sides and funds, the payout of a win, the
 * sizes of a bet and a bettor state, and an initialised chain with one funded bettor.
 */
import { BetChain, DEFAULT_PARAMS, type Bettor } from '../svm.ts';

export const STAKE = 2_000_000_000n;
export const PRICE = 15_000_000_000n;
export const UP = 0;
export const DOWN = 1;
export const FUNDS = 100_000_000_000n;
export const WIN = (STAKE * 13_000n) / 10_000n;
export const BET_SIZE = 131n;
export const STATE_SIZE = 98n;

export async function ready(vaultFunds?: bigint): Promise<{ chain: BetChain; bettor: Bettor }> {
  const chain = new BetChain();
  await chain.setUp(DEFAULT_PARAMS, vaultFunds);
  return { chain, bettor: chain.newBettor(FUNDS) };
}
