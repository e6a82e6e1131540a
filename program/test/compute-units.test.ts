/**
 * Compute units per instruction and path (from LiteSVM's computeUnitsConsumed), printed for the
 * record with the .so size, and held under a budget well inside the 200,000 default, so a
 * regression shows.
 */
import { readFileSync } from 'node:fs';
import { Keypair, type PublicKey } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { PROGRAM_SO_PATH } from '../index.ts';
import { tokenAccountAt } from './forge.ts';
import { BetChain, DEFAULT_PARAMS } from './svm.ts';

const STAKE = 1_000_000_000n;
const PRICE = 15_000_000_000n;
const BUDGET = 30_000;

describe('compute units', () => {
  it('every instruction path stays under budget', async () => {
    const chain = new BetChain();
    const cu: Record<string, number> = {};
    cu['initialize'] = (await chain.setUp()).cu;
    cu['set_paused'] = chain.mustSend([await chain.setPausedIx(0)], [chain.admin]).cu;

    const bettor = chain.newBettor();
    const first = await chain.placeBet(bettor, 0, STAKE, PRICE);
    cu['place_bet (first bet: creates bettor PDA)'] = first.sent.cu;
    const settle = async (bet: PublicKey, exit: bigint, label: string): Promise<void> => {
      chain.setTime(chain.now() + 15n);
      cu[label] = chain.mustSend([await chain.closeBetIx(bet, bettor, exit)], [chain.relayer]).cu;
    };
    await settle(first.bet, PRICE + 1n, 'close_bet (win: PDA-signed payout)');
    cu['place_bet (returning bettor)'] = (await chain.placeBet(bettor, 0, STAKE, PRICE)).sent.cu;
    await settle(chain.betAddress(bettor, 1n), PRICE - 1n, 'close_bet (loss)');
    await chain.placeBet(bettor, 1, STAKE, PRICE);
    await settle(chain.betAddress(bettor, 2n), PRICE, 'close_bet (tie: refund)');

    chain.approveRelayer(bettor, STAKE);
    const delegated = await chain.delegatedIxs(bettor, { side: 0, amount: STAKE, entryPrice: PRICE });
    cu['place_bet_delegated (returning bettor, with its signed intent)'] = chain.mustSend(delegated, [chain.relayer]).cu;
    chain.setTime(chain.now() + 15n);
    const close = await chain.closeBetIx(chain.betAddress(bettor, 3n), bettor, PRICE);
    const replay = await chain.placeBetIx(bettor, { side: 0, amount: STAKE, entryPrice: PRICE }, { seq: 4n });
    cu['close_bet + place_bet (tie replay, one tx)'] = chain.mustSend([close, replay], [chain.relayer, bettor.key]).cu;

    chain.setTime(chain.now() + 15n + DEFAULT_PARAMS.refundAfterSeconds);
    cu['refund_expired'] = chain.mustSend([await chain.refundExpiredIx(chain.betAddress(bettor, 4n), bettor)], [chain.admin]).cu;
    cu['reclaim_bet'] = chain.mustSend([await chain.reclaimBetIx(first.bet, bettor)], [chain.relayer]).cu;
    for (let seq = 1n; seq <= 4n; seq++) chain.mustSend([await chain.reclaimBetIx(chain.betAddress(bettor, seq), bettor)], [chain.relayer]);
    cu['close_bettor'] = chain.mustSend([await chain.closeBettorIx(bettor)], [chain.relayer]).cu;

    const destination = tokenAccountAt(chain, chain.admin.publicKey, chain.mint);
    cu['withdraw'] = chain.mustSend([await chain.withdrawIx(1_000n, destination)], [chain.admin]).cu;
    const relayer = Keypair.generate();
    cu['set_relayer'] = chain.mustSend([await chain.setRelayerIx(relayer.publicKey)], [chain.admin]).cu;
    const successor = Keypair.generate();
    chain.airdrop(successor.publicKey, 1_000_000_000n);
    cu['propose_admin'] = chain.mustSend([await chain.proposeAdminIx(successor.publicKey)], [chain.admin]).cu;
    cu['accept_admin'] = chain.mustSend([await chain.acceptAdminIx(successor.publicKey)], [successor]).cu;

    const size = readFileSync(PROGRAM_SO_PATH).length;
    console.table(Object.entries(cu).map(([path, units]) => ({ path, units })));
    console.log(`updown.so: ${size} bytes`);
    for (const [path, units] of Object.entries(cu)) {
      expect(units, path).toBeGreaterThan(0);
      expect(units, path).toBeLessThan(path.includes('one tx') ? 2 * BUDGET : BUDGET);
    }
  });
});
