/**
 * A bet the player's own wallet signs (docs/gateway-api.md#bet-with-your-wallet): the gateway checks
 * what it can know before the wallet is asked (the contract's state, the limits, a fresh price, the
 * bettor's open bet, its tokens and the SOL for the fee, all read from the chain mirror) and hands
 * back a placement transaction the relayer has signed. Nothing is sent and nothing is recorded: the
 * wallet sends it, and the gateway learns of the bet from the chain like any other (the settler's
 * adoption of bets placed outside it).
 */
import type { PublicKey } from '@solana/web3.js';
import type { Side } from '../../../kernel/domain.ts';
import { formatFixed } from '../../../kernel/fixed-point.ts';
import { isRefusal } from '../../../kernel/refusal.ts';
import { MESSAGES, refusal, type GatewayRefusal } from '../refusals.ts';
import { formatHuman } from '../views/units.ts';
import { onChain } from './chain-calls.ts';
import { openForBet, type BetDeps } from './place-bet.ts';

/** The network fee of a placement the wallet pays (two signatures: the bettor's and the relayer's). */
export const WALLET_BET_FEE_LAMPORTS = 10_000n;

export interface WalletBetRequest {
  bettor: PublicKey;
  side: Side;
  amountUnits: bigint;
}

/** A placement for the wallet, and what it says in words. */
export interface WalletBet {
  /** base64 of the wire transaction, the bettor's signature slot empty */
  transaction: string;
  /** the bettor's bet number it opens (its bettor state's bet count) */
  betNumber: string;
  /** entry price x 1e8 it records */
  entryPrice: string;
  /** a sentence for the wallet to show */
  message: string;
}

/** What a wallet bet reads: the chain (its mirror) and the price held, as POST /api/bet does. */
export type WalletBetDeps = Pick<BetDeps, 'chain' | 'entryPrice'>;

/** Checks the bet as POST /api/bet would, then builds its transaction for the wallet. */
export async function walletBet(deps: WalletBetDeps, req: WalletBetRequest): Promise<WalletBet | GatewayRefusal> {
  const { chain } = deps;
  const open = await openForBet(deps, req.amountUnits, (c) => `the amount must be between ${formatHuman(c.minAmount)} and ${formatHuman(c.maxAmount)} tokens`);
  if (isRefusal(open)) return open;
  const { config, entryPrice } = open;
  const state = await onChain(() => chain.readBettorState(req.bettor));
  if (isRefusal(state)) return state;
  if (state?.openBetId != null) return refusal('open_bet', MESSAGES.openBet, { openBetId: state.openBetId.toString() });
  const balance = await onChain(() => chain.balances(req.bettor));
  if (isRefusal(balance)) return balance;
  if (balance.tokenUnits < req.amountUnits)
    return refusal('invalid_request', `the account holds ${formatHuman(balance.tokenUnits)} tokens, less than the stake of ${formatHuman(req.amountUnits)}`);
  if (balance.lamports < WALLET_BET_FEE_LAMPORTS) return refusal('invalid_request', 'the account holds too little SOL to pay the network fee');
  const betNumber = state?.betCount ?? 0n;
  const placement = await onChain(() => chain.walletPlacement({ bettor: req.bettor, side: req.side, amount: req.amountUnits, betNumber, entryPrice }));
  if (isRefusal(placement)) return placement;
  return {
    transaction: Buffer.from(placement.transaction).toString('base64'),
    betNumber: betNumber.toString(),
    entryPrice: placement.entryPrice.toString(),
    message: `${req.side} on SOL at ${formatFixed(placement.entryPrice, 8, { trim: true })} USD with ${formatHuman(req.amountUnits)} tokens, settled ${config.expirySeconds} s after it lands`,
  };
}
