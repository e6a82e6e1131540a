/**
 * Conservation of tokens: over random sequences of bets (bettors, sides, stakes, price moves,
 * tie replays), vault + all bettors never change in sum, and each bettor's balance moves only
 * by exactly floor(stake x multiplier_bps / 10000) - stake on a win, -stake on a loss, 0 on a tie.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BetChain, DEFAULT_PARAMS, type Bettor } from './svm.ts';

const PRICE = 15_000_000_000n;
const FUNDS = 200_000_000_000n;
const VAULT = 500_000_000_000n;

const betArb = fc.record({
  who: fc.nat({ max: 2 }),
  side: fc.constantFrom(0, 1),
  amount: fc.bigInt({ min: DEFAULT_PARAMS.minAmount, max: DEFAULT_PARAMS.maxAmount }),
  move: fc.constantFrom(-1n, 0n, 1n),
  replayTie: fc.boolean(),
});

function expectedNet(side: number, amount: bigint, move: bigint, multiplierBps: bigint): bigint {
  if (move === 0n) return 0n;
  const won = (side === 0 && move > 0n) || (side === 1 && move < 0n);
  return won ? (amount * multiplierBps) / 10_000n - amount : -amount;
}

describe('token conservation', () => {
  it('vault + bettors is constant; each bettor moves only by stake x (multiplier - 1), -stake or 0', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(betArb, { minLength: 1, maxLength: 8 }), fc.constantFrom(10_000n, 13_000n, 19_999n), async (bets, multiplierBps) => {
        const chain = new BetChain();
        await chain.setUp({ ...DEFAULT_PARAMS, multiplierBps }, VAULT);
        const bettors: Bettor[] = [0, 1, 2].map(() => chain.newBettor(FUNDS));
        const expected = bettors.map(() => FUNDS);
        const total = (): bigint => chain.tokenBalance(chain.vault) + bettors.reduce((sum, b) => sum + chain.tokenBalance(b.token), 0n);
        const start = total();
        for (const bet of bets) {
          const bettor = bettors[bet.who]!;
          const { id } = await chain.placeBet(bettor, bet.side, bet.amount, PRICE);
          expect(total()).toBe(start);
          chain.setTime(chain.now() + DEFAULT_PARAMS.expirySeconds);
          const exit = PRICE + bet.move;
          const close = await chain.closeBetIx(id, bettor, exit);
          expected[bet.who]! += expectedNet(bet.side, bet.amount, bet.move, multiplierBps);
          if (bet.move === 0n && bet.replayTie) {
            // Profile B tie replay: refund and re-stake in one transaction, then settle the replay as a loss.
            const place = await chain.placeBetIx(bettor, { id: id + 1n, side: bet.side, amount: bet.amount, entryPrice: exit });
            chain.mustSend([close, place], [chain.relayer, bettor.key]);
            expect(total()).toBe(start);
            chain.setTime(chain.now() + DEFAULT_PARAMS.expirySeconds);
            const lose = bet.side === 0 ? exit - 1n : exit + 1n;
            chain.mustSend([await chain.closeBetIx(id + 1n, bettor, lose)], [chain.relayer]);
            expected[bet.who]! -= bet.amount;
          } else {
            chain.mustSend([close], [chain.relayer]);
          }
          expect(total()).toBe(start);
          bettors.forEach((b, i) => expect(chain.tokenBalance(b.token)).toBe(expected[i]));
        }
        expect(chain.tokenBalance(chain.vault)).toBe(start - expected.reduce((sum, value) => sum + value, 0n));
      }),
      { numRuns: 12 },
    );
  });
});
