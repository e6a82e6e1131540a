/**
 * The effects a bet chain needs (spec section 3; design: "Rules the specs leave open"), built on
 * the chain adapter, the price history and the key store. Each is idempotent: it reads the bet
 * on chain first, so a retry or a restart never settles a bet twice (the program also refuses
 * a second close).
 */
import { PublicKey, type Keypair } from '@solana/web3.js';
import { ProgramRefusal, type BetAccount, type ChainPort } from '../../adapters/chain/port.ts';
import type { PriceHistory } from '../../adapters/store/price-history.ts';
import type { BetEffects, CloseResult, ReplaceResult } from './bet-effects.ts';
import { entryPriceNow, exitPriceAt } from './prices.ts';

/** What the effects are built from. */
export interface SettlementDeps {
  chain: ChainPort;
  history: PriceHistory;
  /** the custodial key of an address (the Profile B bettor signs its replacement bet) */
  keyFor(address: string): Promise<Keypair | undefined>;
  /** unix ms */
  now(): number;
}

async function requireBet(chain: ChainPort, id: bigint): Promise<BetAccount> {
  const bet = await chain.readBet(id);
  if (!bet) throw new Error(`bet ${id} does not exist on chain`);
  return bet;
}

const alreadyClosed = (bet: BetAccount): CloseResult & ReplaceResult => ({ kind: 'already_closed' as const, status: bet.status, exitPrice: bet.exitPrice });

/**
 * The replacement of a tied bet that is already closed: the bettor's next bet (lowest higher
 * id), placed in the same transaction as the close; none when the bet did not end in a tie.
 */
async function replacementOf(chain: ChainPort, tied: BetAccount): Promise<ReplaceResult> {
  if (tied.status !== 3) return alreadyClosed(tied);
  const later = (await chain.scanBetsOf(new PublicKey(tied.bettor))).filter((b) => b.id > tied.id);
  const next = later.sort((a, b) => (a.id < b.id ? -1 : 1))[0];
  if (!next || next.side !== tied.side || next.amount !== tied.amount) return alreadyClosed(tied);
  return { kind: 'replaced', signature: '', next: { id: next.id, entryPrice: next.entryPrice, expireTime: next.expireTime } };
}

/** The settlement effects of the bet actors. */
export function settlementEffects(deps: SettlementDeps): BetEffects {
  const { chain, history } = deps;
  return {
    async priceExit({ expireTime }) {
      const d = await exitPriceAt(history, expireTime, deps.now());
      if (d.kind === 'price') return { kind: 'price', value: d.value };
      return d.kind === 'refund_at_entry' ? { kind: 'refund_at_entry' } : { kind: 'wait' };
    },

    async closeOnChain({ betId, exitPrice }) {
      const bet = await requireBet(chain, betId);
      if (bet.status !== 0) return alreadyClosed(bet);
      try {
        const closed = await chain.closeBet(betId, exitPrice);
        return { kind: 'closed', status: closed.status, signature: closed.signature };
      } catch (err) {
        // another process (or an earlier attempt whose answer was lost) may have closed it
        if (!(err instanceof ProgramRefusal)) throw err;
        const again = await requireBet(chain, betId);
        if (again.status !== 0) return alreadyClosed(again);
        throw err;
      }
    },

    async closeAndReplace({ betId, exitPrice, bettor }) {
      const bet = await requireBet(chain, betId);
      if (bet.status !== 0) return replacementOf(chain, bet);
      const key = await deps.keyFor(bettor);
      if (!key) throw new Error(`the key store does not hold ${bettor}; the tie cannot be replayed`);
      const entry = await entryPriceNow(history, deps.now());
      if (entry.kind !== 'price') throw new Error(`no fresh price to replay bet ${betId} (${entry.reason})`);
      try {
        const { placed } = await chain.closeAndReplace(betId, exitPrice, key, entry.value);
        const next = await requireBet(chain, placed.betId);
        return { kind: 'replaced', signature: placed.signature, next: { id: next.id, entryPrice: next.entryPrice, expireTime: next.expireTime } };
      } catch (err) {
        if (!(err instanceof ProgramRefusal)) throw err;
        const again = await requireBet(chain, betId);
        if (again.status !== 0) return replacementOf(chain, again);
        throw err;
      }
    },
  };
}
