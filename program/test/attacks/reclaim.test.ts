/**
 * reclaim_bet / close_bettor: an attacker cannot reclaim or close in the relayer's place, take
 * the rent, reclaim an open or forged bet, or close a bettor state that is not idle.
 */
import type { PublicKey } from '@solana/web3.js';
import { Keypair } from '@solana/web3.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { forgeCopy } from '../forge.ts';
import { expectRefused } from '../refusal.ts';
import { BetChain, patchAccount, type Bettor } from '../svm.ts';
import { STAKE, PRICE, stranger } from './support.ts';

let chain: BetChain;
let victim: Bettor;
let attacker: Bettor;

describe('reclaim_bet / close_bettor: attacker', () => {
  let bet: PublicKey;
  beforeEach(async () => {
    chain = new BetChain();
    await chain.setUp();
    victim = chain.newBettor();
    attacker = chain.newBettor();
    bet = (await chain.placeBet(victim, 0, STAKE, PRICE)).bet;
    chain.setTime(chain.now() + 15n);
    chain.mustSend([await chain.closeBetIx(bet, victim, PRICE - 1n)], [chain.relayer]);
  });

  it('cannot reclaim or close as a stranger, as the admin, or without the relayer signature', async () => {
    const thief = stranger(chain);
    expectRefused(chain.send([await chain.reclaimBetIx(bet, victim, { relayer: thief.publicKey, payer: thief.publicKey })], [thief]), 'Unauthorized');
    expectRefused(chain.send([await chain.reclaimBetIx(bet, victim, { relayer: chain.admin.publicKey })], [chain.admin]), 'Unauthorized');
    const unsigned = patchAccount(await chain.reclaimBetIx(bet, victim), 'reclaim_bet', 'relayer', { isSigner: false });
    expectRefused(chain.send([unsigned], [thief]), 'MissingSignature');
    chain.mustSend([await chain.reclaimBetIx(bet, victim)], [chain.relayer]);
    expectRefused(chain.send([await chain.closeBettorIx(victim, { relayer: thief.publicKey, payer: thief.publicKey })], [thief]), 'Unauthorized');
    const unsignedClose = patchAccount(await chain.closeBettorIx(victim), 'close_bettor', 'relayer', { isSigner: false });
    expectRefused(chain.send([unsignedClose], [thief]), 'MissingSignature');
  });

  it('the relayer cannot take the rent: it goes to the recorded payer only', async () => {
    const thief = Keypair.generate().publicKey;
    expectRefused(chain.send([await chain.reclaimBetIx(bet, victim, { payer: thief })], [chain.relayer]), 'PayerMismatch');
    expectRefused(chain.send([await chain.reclaimBetIx(bet, victim, { payer: victim.key.publicKey })], [chain.relayer]), 'PayerMismatch');
    expect(chain.readAccount(thief)).toBeNull();
  });

  it('cannot reclaim an open bet, a forged settled copy, or through another bettor state', async () => {
    const open = (await chain.placeBet(attacker, 0, STAKE, PRICE)).bet;
    expectRefused(chain.send([await chain.reclaimBetIx(open, attacker)], [chain.relayer]), 'BetStillOpen');
    const forged = forgeCopy(chain, open, (data) => (data[129] = 2));
    expectRefused(chain.send([await chain.reclaimBetIx(forged, attacker)], [chain.relayer]), 'InvalidPda');
    expectRefused(chain.send([await chain.reclaimBetIx(bet, victim, { bettorState: attacker.state })], [chain.relayer]), 'BettorMismatch');
    expect(chain.readBet(open).status).toBe(0);
  });

  it('cannot close a bettor state with an open bet, unreclaimed bets, or a forged idle copy', async () => {
    expectRefused(chain.send([await chain.closeBettorIx(victim)], [chain.relayer]), 'BettorNotIdle');
    const idle = forgeCopy(chain, victim.state, (data) => data.fill(0, 81, 89));
    expectRefused(chain.send([await chain.closeBettorIx(victim, { bettorState: idle })], [chain.relayer]), 'InvalidPda');
    await chain.placeBet(attacker, 0, STAKE, PRICE);
    expectRefused(chain.send([await chain.closeBettorIx(attacker)], [chain.relayer]), 'BettorNotIdle');
    expect(chain.readBettorState(victim)).toMatchObject({ bet_count: 1n, reclaimed: 0n });
  });
});
