/**
 * Conservation and solvency over random command sequences (bets on several bettors open at once,
 * wins, losses, ties, tie replays, refunds after the grace period, withdrawals, reclaims and
 * bettor closes), checked against a model after every command:
 * - tokens are conserved: vault + bettors + the withdrawal account never change in sum, and each
 *   bettor moves only by floor(stake x multiplier_bps / 10000) - stake on a win, -stake on a
 *   loss, 0 on a tie or refund;
 * - config.open_liability equals the sum of the open bets' win payouts, and the vault never
 *   holds less (a bet or withdrawal that would break it is refused with the expected code);
 * - every lamport of a reclaimed bet or closed bettor state returns to its payer (the relayer).
 */
import fc from 'fast-check';
import type { PublicKey } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { tokenAccountAt } from './forge.ts';
import { expectRefused } from './refusal.ts';
import { BetChain, DEFAULT_PARAMS, type Bettor } from './svm.ts';

const PRICE = 15_000_000_000n;
const FUNDS = 200_000_000_000n;
const BETTORS = 3;
const FEE = 5_000n;

const commandArb = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('place' as const),
      who: fc.nat({ max: BETTORS - 1 }),
      side: fc.constantFrom(0, 1),
      amount: fc.bigInt({ min: DEFAULT_PARAMS.minAmount, max: DEFAULT_PARAMS.maxAmount }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('settle' as const),
      who: fc.nat({ max: BETTORS - 1 }),
      move: fc.constantFrom(-1n, 0n, 1n),
      replayTie: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('refund' as const), who: fc.nat({ max: BETTORS - 1 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('reclaim' as const), who: fc.nat({ max: BETTORS - 1 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('closeBettor' as const), who: fc.nat({ max: BETTORS - 1 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('withdraw' as const), share: fc.nat({ max: 100 }), over: fc.boolean() }) },
);
type Command = typeof commandArb extends fc.Arbitrary<infer T> ? T : never;

interface OpenBet {
  bet: PublicKey;
  seq: bigint;
  side: number;
  amount: bigint;
  expire: bigint;
}

interface Model {
  open: (OpenBet | null)[];
  settled: PublicKey[][];
  tokens: bigint[];
}

function won(side: number, move: bigint): boolean {
  return (side === 0 && move > 0n) || (side === 1 && move < 0n);
}

describe('token conservation and solvency', () => {
  it('tokens are conserved, the vault covers open_liability = sum of open payouts, and rent returns to the payer', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(commandArb, { minLength: 12, maxLength: 30 }),
        fc.constantFrom(10_000n, 13_000n, 19_999n),
        fc.constantFrom(0n, 5_000_000_000n, 500_000_000_000n),
        async (commands, multiplierBps, vaultFunds) => {
          const chain = new BetChain();
          await chain.setUp({ ...DEFAULT_PARAMS, multiplierBps }, vaultFunds);
          const payout = (amount: bigint): bigint => (amount * multiplierBps) / 10_000n;
          const bettors: Bettor[] = Array.from({ length: BETTORS }, () => chain.newBettor(FUNDS));
          const sink = tokenAccountAt(chain, chain.admin.publicKey, chain.mint);
          const model: Model = { open: bettors.map(() => null), settled: bettors.map(() => []), tokens: bettors.map(() => FUNDS) };
          const total = (): bigint =>
            chain.tokenBalance(chain.vault) + chain.tokenBalance(sink) + bettors.reduce((sum, b) => sum + chain.tokenBalance(b.token), 0n);
          const start = total();
          const liability = (): bigint => model.open.reduce((sum, bet) => sum + (bet ? payout(bet.amount) : 0n), 0n);

          const place = async (who: number, side: number, amount: bigint, entry = PRICE): Promise<boolean> => {
            const bettor = bettors[who]!;
            const ix = await chain.placeBetIx(bettor, { side, amount, entryPrice: entry });
            const seq = chain.nextSeq(bettor);
            if (model.open[who]) {
              expectRefused(chain.send([ix], [chain.relayer, bettor.key]), 'OpenBetExists');
              return false;
            }
            if (chain.tokenBalance(chain.vault) + amount < liability() + payout(amount)) {
              expectRefused(chain.send([ix], [chain.relayer, bettor.key]), 'VaultCannotCover');
              return false;
            }
            chain.mustSend([ix], [chain.relayer, bettor.key]);
            model.open[who] = { bet: chain.betAddress(bettor, seq), seq, side, amount, expire: chain.now() + DEFAULT_PARAMS.expirySeconds };
            model.tokens[who]! -= amount;
            return true;
          };
          const at = (time: bigint): void => {
            if (time > chain.now()) chain.setTime(time);
          };
          const reclaimOrClose = (account: PublicKey, send: () => void): void => {
            const rent = chain.lamportsOf(account);
            const before = chain.lamportsOf(chain.relayer.publicKey);
            send();
            expect(chain.readAccount(account)).toBeNull();
            expect(chain.lamportsOf(chain.relayer.publicKey)).toBe(before + rent - FEE);
          };

          for (const command of commands as Command[]) {
            switch (command.kind) {
              case 'place':
                await place(command.who, command.side, command.amount);
                break;
              case 'settle': {
                const open = model.open[command.who];
                if (!open) break;
                const bettor = bettors[command.who]!;
                at(open.expire);
                const exit = PRICE + command.move;
                const close = await chain.closeBetIx(open.bet, bettor, exit);
                model.open[command.who] = null;
                model.settled[command.who]!.push(open.bet);
                if (command.move === 0n) model.tokens[command.who]! += open.amount;
                else if (won(open.side, command.move)) model.tokens[command.who]! += payout(open.amount);
                if (command.move === 0n && command.replayTie) {
                  // Profile B tie replay: refund and re-stake in one transaction, at the next seq. The
                  // vault covered this bet's payout before, so it covers the same stake again.
                  const replay = await chain.placeBetIx(bettor, { side: open.side, amount: open.amount, entryPrice: exit }, { seq: open.seq + 1n });
                  chain.mustSend([close, replay], [chain.relayer, bettor.key]);
                  model.open[command.who] = {
                    bet: chain.betAddress(bettor, open.seq + 1n),
                    seq: open.seq + 1n,
                    side: open.side,
                    amount: open.amount,
                    expire: chain.now() + DEFAULT_PARAMS.expirySeconds,
                  };
                  model.tokens[command.who]! -= open.amount;
                } else {
                  chain.mustSend([close], [chain.relayer]);
                }
                break;
              }
              case 'refund': {
                const open = model.open[command.who];
                if (!open) break;
                at(open.expire + DEFAULT_PARAMS.refundAfterSeconds);
                chain.mustSend([await chain.refundExpiredIx(open.bet, bettors[command.who]!)], [chain.admin]);
                model.open[command.who] = null;
                model.settled[command.who]!.push(open.bet);
                model.tokens[command.who]! += open.amount;
                break;
              }
              case 'reclaim': {
                const bettor = bettors[command.who]!;
                for (const bet of model.settled[command.who]!) {
                  const ix = await chain.reclaimBetIx(bet, bettor);
                  reclaimOrClose(bet, () => chain.mustSend([ix], [chain.relayer]));
                }
                model.settled[command.who] = [];
                break;
              }
              case 'closeBettor': {
                const bettor = bettors[command.who]!;
                if (!chain.readAccount(bettor.state)) break;
                const ix = await chain.closeBettorIx(bettor);
                if (model.open[command.who] || model.settled[command.who]!.length > 0) {
                  expectRefused(chain.send([ix], [chain.relayer]), 'BettorNotIdle');
                  break;
                }
                reclaimOrClose(bettor.state, () => chain.mustSend([ix], [chain.relayer]));
                expect(chain.nextSeq(bettor)).toBe(0n);
                break;
              }
              case 'withdraw': {
                const vault = chain.tokenBalance(chain.vault);
                const free = vault - liability();
                if (command.over) {
                  const refusal = free + 1n > vault ? 'VaultInsufficient' : 'WithdrawBelowLiability';
                  expectRefused(chain.send([await chain.withdrawIx(free + 1n, sink)], [chain.admin]), refusal);
                } else {
                  chain.mustSend([await chain.withdrawIx((free * BigInt(command.share)) / 100n, sink)], [chain.admin]);
                }
                break;
              }
            }
            expect(total()).toBe(start);
            bettors.forEach((b, i) => expect(chain.tokenBalance(b.token), `bettor ${i}`).toBe(model.tokens[i]));
            const config = chain.readConfig();
            expect(config.open_liability).toBe(liability());
            expect(chain.tokenBalance(chain.vault) >= config.open_liability).toBe(true);
            model.open.forEach((open, i) => {
              const state = chain.readAccount(bettors[i]!.state) ? chain.readBettorState(bettors[i]!) : null;
              expect(state?.has_open_bet ?? 0).toBe(open ? 1 : 0);
              if (open) expect(chain.readBet(open.bet)).toMatchObject({ status: 0, amount: open.amount });
            });
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});
