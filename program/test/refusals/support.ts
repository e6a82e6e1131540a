/**
 * What the refusal tests share: stake and price, an initialised chain with a bettor, the
 * arguments of a placement, a settled bet, and the shape of the check that records each error
 * reached.
 */
import type { PublicKey } from '@solana/web3.js';
import type { expectRefused } from '../refusal.ts';
import { BetChain, DEFAULT_PARAMS, type Bettor } from '../svm.ts';

export const STAKE = 1_000_000_000n;
export const PRICE = 15_000_000_000n;
export const U64_MAX = 2n ** 64n - 1n;

export async function ready(params = DEFAULT_PARAMS, vaultFunds?: bigint): Promise<{ chain: BetChain; bettor: Bettor }> {
  const chain = new BetChain();
  await chain.setUp(params, vaultFunds);
  return { chain, bettor: chain.newBettor() };
}

export async function placeArgs(chain: BetChain, bettor: Bettor, over: Partial<{ side: number; amount: bigint; entryPrice: bigint }> = {}) {
  return chain.placeBetIx(bettor, { side: 0, amount: STAKE, entryPrice: PRICE, ...over });
}

/** A settled (lost) bet of `bettor`. */
export async function settledBet(chain: BetChain, bettor: Bettor): Promise<PublicKey> {
  const { bet } = await chain.placeBet(bettor, 0, STAKE, PRICE);
  chain.setTime(chain.now() + DEFAULT_PARAMS.expirySeconds);
  chain.mustSend([await chain.closeBetIx(bet, bettor, PRICE - 1n)], [chain.relayer]);
  return bet;
}

/** Expects `sent` refused with the program error `name`, and records that the error was reached. */
export type Refused = (sent: Parameters<typeof expectRefused>[0], name: string) => void;
