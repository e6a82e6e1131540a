/**
 * The effects a bet series needs (docs/gateway-api.md#bet-status,
 * docs/decisions.md#entry-and-exit-prices), built on the chain adapter, the price history and the
 * key store. Each is idempotent: the adapter reads the bet (from its mirror) first, so a retry or a
 * restart never settles a bet twice (the program also refuses a second close). The 300 s refund
 * without a price uses the contract's refund_expired once the chain allows it.
 */
import type { Keypair } from '@solana/web3.js';
import { ProgramRefusal, type BetAccount, type BetRef, type ChainPort } from '../../../adapters/chain/port.ts';
import type { PriceHistory } from '../../../adapters/store/price-history/port.ts';
import type { BetEffects, CloseResult, ReplaceResult } from '../bets/effects.ts';
import { entryPriceNow, exitPriceAt } from '../prices/ingestion.ts';

/** What the effects are built from. */
export interface SettlementDeps {
  chain: ChainPort;
  history: PriceHistory;
  /** the custodial key of an address (the Profile B bettor signs its replacement bet) */
  keyFor(address: string): Promise<Keypair | undefined>;
  /** unix ms */
  now(): number;
  /** awaited right before any close, refund or replay is sent; throws to refuse it (a stale fence: `runtime/gateway/leader/fence-guard.ts`) */
  beforeSettling?: (what: string) => Promise<void>;
}

/** A close found already made: the chain's outcome, and the transaction that made it when the chain can say. */
async function alreadyClosed(chain: ChainPort, ref: BetRef, bet: { status: BetAccount['status']; exitPrice: bigint }): Promise<CloseResult & ReplaceResult> {
  const { closeTx } = await chain.betTransactions(ref);
  return { kind: 'already_closed' as const, status: bet.status, exitPrice: bet.exitPrice, signature: closeTx };
}

/** Program error: refund_expired before expire_time + refund_after_seconds. */
const REFUND_NOT_YET_ALLOWED = 6036;

/**
 * The replacement of a tied bet that is already closed: the bettor's next bet (seq + 1), placed in
 * the same transaction as the close; none when the bet did not end in a tie.
 */
async function replacementOf(chain: ChainPort, tied: BetAccount): Promise<ReplaceResult> {
  if (tied.status !== 3) return alreadyClosed(chain, tied, tied);
  const next = await chain.readBet({ bettor: tied.bettor, seq: tied.seq + 1n });
  if (!next || next.side !== tied.side || next.amount !== tied.amount) return alreadyClosed(chain, tied, tied);
  // the close of the tied bet and the placement of its replacement are one transaction
  const { closeTx } = await chain.betTransactions(tied);
  return { kind: 'replaced', signature: closeTx, next: { id: next.id, seq: next.seq, entryPrice: next.entryPrice, expireTime: next.expireTime } };
}

/** The settlement effects of the bet actors. */
export function settlementEffects(deps: SettlementDeps): BetEffects {
  const { chain, history } = deps;
  /** The stake back: refund_expired once the chain allows it, before that a close at the entry price (a tie). */
  const refund = async (ref: BetRef, entryPrice: bigint) => {
    try {
      return await chain.refundExpired(ref);
    } catch (err) {
      if (err instanceof ProgramRefusal && err.code === REFUND_NOT_YET_ALLOWED) return chain.closeBet(ref, entryPrice);
      throw err;
    }
  };
  return {
    async priceExit({ expireTime }) {
      // with signed prices the close needs the tick after expiry: the bet waits for it instead of failing its close
      const signed = (await chain.signedPricesRequired?.()) ?? false;
      const d = await exitPriceAt(history, expireTime, deps.now(), signed);
      if (d.kind === 'price') return { kind: 'price', value: d.value };
      return d.kind === 'refund_at_entry' ? { kind: 'refund_at_entry' } : { kind: 'wait' };
    },

    async closeOnChain({ ref, exitPrice, refund: refundIt }) {
      await deps.beforeSettling?.(refundIt ? 'refund' : 'close_bet');
      // the chain answers a bet already closed (a retry, another gateway) with its outcome; the program refuses a second close
      const closed = refundIt ? await refund(ref, exitPrice) : await chain.closeBet(ref, exitPrice);
      return closed.already ? alreadyClosed(chain, ref, closed) : { kind: 'closed', status: closed.status, signature: closed.signature };
    },

    async closeAndReplace({ betId, ref, exitPrice }) {
      const bet = await chain.readBet(ref);
      if (!bet) throw new Error(`bet ${betId} (${ref.bettor}/${ref.seq}) is not on chain`);
      if (bet.status !== 0) return replacementOf(chain, bet);
      const key = await deps.keyFor(ref.bettor);
      if (!key) throw new Error(`the key store does not hold ${ref.bettor}; the tie cannot be replayed`);
      const entry = await entryPriceNow(history, deps.now());
      if (entry.kind !== 'price') throw new Error(`no fresh price to replay bet ${betId} (${entry.reason})`);
      await deps.beforeSettling?.('close_bet + place_bet');
      try {
        const { placed } = await chain.closeAndReplace(ref, exitPrice, key, entry.value);
        const next = placed.bet;
        return {
          kind: 'replaced',
          signature: placed.signature,
          next: { id: next.id, seq: next.seq, entryPrice: next.entryPrice, expireTime: next.expireTime },
        };
      } catch (err) {
        if (!(err instanceof ProgramRefusal)) throw err;
        const again = await chain.readBet(ref);
        if (again && again.status !== 0) return replacementOf(chain, again);
        throw err;
      }
    },
  };
}
