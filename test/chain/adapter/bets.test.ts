/**
 * The chain adapter's bets against the local chain over real HTTP and its PubSub WebSocket:
 * placing (signed and delegated), settling every outcome, refunds, and the program's refusals
 * surfacing as ProgramRefusal with the program's code.
 */
import { describe, expect, it } from 'vitest';
import { Connection, Keypair, PublicKey, Transaction } from '@solana/web3.js';
import { createApproveInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { signBytes } from '../../../adapters/chain/signing.ts';
import type { RpcChain } from '../../../adapters/chain/rpc-chain/index.ts';
import { TEST_PARAMS, fundedBettor, untilUnix, type TestChain } from '../support.ts';
import { STAKE, PRICE, WIN, refusal, signed, onLocalChain } from './fixtures.ts';

describe('RpcChain on the local chain', () => {
  let t: TestChain;
  let chain: RpcChain;
  onLocalChain((started, adapter) => {
    t = started;
    chain = adapter;
  });

  it("places a signed bet at the bettor's seq, reads it back from the mirror, and settles a win after expiry", async () => {
    const bettor = await fundedBettor(chain);
    const next = (await chain.readConfig())!.nextBetId;
    const placed = await chain.placeBet(signed(bettor));
    // first thing after placing: expiry is seconds away (a slow machine must not turn this into a close)
    expect((await refusal(chain.closeBet(placed.bet, PRICE + 1n))).errorName).toBe('BetNotExpired');
    expect(placed.bet).toMatchObject({
      id: next,
      seq: 0n,
      bettor: bettor.publicKey.toBase58(),
      payer: t.keys.relayer.publicKey.toBase58(),
      side: 'UP',
      amount: STAKE,
      entryPrice: PRICE,
      exitPrice: 0n,
      status: 0,
    });
    expect(placed.signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    const bet = placed.bet;
    expect(bet.expireTime - bet.betTime).toBe(TEST_PARAMS.expirySeconds);
    expect(Math.abs(Number(bet.betTime) - Date.now() / 1000)).toBeLessThan(5); // the Clock follows wall time
    expect(await chain.readBettorState(bettor.publicKey)).toMatchObject({ openBetId: next, betCount: 1n, reclaimed: 0n });
    expect((await chain.scanOpenBets()).map((b) => b.id)).toContain(next);
    expect((await chain.scanBetsOf(bettor.publicKey)).map((b) => b.id)).toEqual([next]);
    expect((await chain.balances(bettor.publicKey)).tokenUnits).toBe(10_000_000_000n - STAKE);
    expect((await chain.readConfig())!.openLiability).toBeGreaterThanOrEqual(WIN);

    await untilUnix(bet.expireTime);
    const vaultBefore = await chain.vaultBalance();
    const closed = await chain.closeBet(bet, PRICE + 1n);
    expect(closed).toMatchObject({ status: 1, exitPrice: PRICE + 1n, already: false });
    expect((await chain.balances(bettor.publicKey)).tokenUnits).toBe(10_000_000_000n - STAKE + WIN);
    expect(await chain.vaultBalance()).toBe(vaultBefore - WIN);
    expect((await chain.readBettorState(bettor.publicKey))!.openBetId).toBeNull();
    expect((await chain.scanOpenBets()).map((b) => b.id)).not.toContain(next);
    // a second close (a retry, another gateway) answers the outcome already on chain and sends nothing
    expect(await chain.closeBet(bet, PRICE)).toMatchObject({ status: 1, exitPrice: PRICE + 1n, already: true, signature: '' });

    // the settled bet's account is reclaimed: rent back to the relayer, gone from the mirror
    const relayerBefore = (await chain.balances(t.keys.relayer.publicKey)).lamports;
    expect(await chain.reclaimBet(bet)).toBe(true);
    expect(await chain.readBet(bet)).toBeNull();
    expect((await chain.balances(t.keys.relayer.publicKey)).lamports).toBeGreaterThan(relayerBefore);
    expect(await chain.readBettorState(bettor.publicKey)).toMatchObject({ betCount: 1n, reclaimed: 1n });
    expect(await chain.reclaimBet(bet)).toBe(false);
    // the next bet of the bettor goes to seq 1
    expect((await chain.placeBet(signed(bettor))).bet.seq).toBe(1n);
  });

  it('a lost bet goes to the house; a tie is replaced by a new bet at seq + 1 in one transaction', async () => {
    const [loser, tier] = await Promise.all([fundedBettor(chain), fundedBettor(chain)]);
    const lost = await chain.placeBet(signed(loser, { side: 'DOWN' }));
    const tie = await chain.placeBet(signed(tier, { side: 'DOWN', amount: 2n * STAKE }));
    await untilUnix(tie.bet.expireTime);
    expect((await chain.closeBet(lost.bet, PRICE + 5n)).status).toBe(2);
    expect((await chain.balances(loser.publicKey)).tokenUnits).toBe(10_000_000_000n - STAKE);

    const { closed, placed } = await chain.closeAndReplace(tie.bet, PRICE, tier, PRICE + 7n);
    expect(closed).toMatchObject({ status: 3, exitPrice: PRICE });
    expect(placed.signature).toBe(closed.signature);
    expect(placed.bet).toMatchObject({
      seq: tie.bet.seq + 1n,
      bettor: tier.publicKey.toBase58(),
      side: 'DOWN',
      amount: 2n * STAKE,
      entryPrice: PRICE + 7n,
      status: 0,
    });
    expect(placed.bet.id).toBeGreaterThan(tie.bet.id);
    expect((await chain.readBettorState(tier.publicKey))!.openBetId).toBe(placed.bet.id);
    expect((await chain.balances(tier.publicKey)).tokenUnits).toBe(10_000_000_000n - 2n * STAKE);
  });

  it('refund_expired returns exactly the stake once expiry + refund_after_seconds passed, not before', async () => {
    const bettor = await fundedBettor(chain);
    const { bet } = await chain.placeBet(signed(bettor));
    await untilUnix(bet.expireTime);
    expect((await refusal(chain.refundExpired(bet))).errorName).toBe('RefundNotYetAllowed');
    await untilUnix(bet.expireTime + TEST_PARAMS.refundAfterSeconds);
    expect(await chain.refundExpired(bet)).toMatchObject({ status: 3, exitPrice: PRICE, already: false });
    expect((await chain.balances(bettor.publicKey)).tokenUnits).toBe(10_000_000_000n);
    expect(await chain.refundExpired(bet)).toMatchObject({ status: 3, already: true });
  });

  it('places a delegated bet once the bettor approved the relayer and signed its intent, refuses it before (DelegateMissing)', async () => {
    const bettor = await fundedBettor(chain);
    // the bettor's consent to its first bet (docs/decisions.md#bet-intents)
    const validUntil = BigInt(Math.floor(Date.now() / 1000) + 120);
    const message = chain.intentMessage({ bettor: bettor.publicKey, side: 'UP', amount: STAKE, betNumber: 0n, validUntil });
    const intent = { signature: signBytes(bettor, message), validUntil };
    expect(chain.intentSigned({ bettor: bettor.publicKey, side: 'UP', amount: STAKE, betNumber: 0n, validUntil }, intent.signature)).toBe(true);
    expect(chain.intentSigned({ bettor: bettor.publicKey, side: 'DOWN', amount: STAKE, betNumber: 0n, validUntil }, intent.signature)).toBe(false);
    const delegated = { stake: { kind: 'delegate' as const, bettor: bettor.publicKey, intent }, side: 'UP' as const, amount: STAKE, entryPrice: PRICE };
    const refused = await refusal(chain.placeBet(delegated));
    expect([refused.code, refused.errorName]).toEqual([6026, 'DelegateMissing']);
    expect(refused.logs.length).toBeGreaterThan(0);

    // the bettor approves with its own wallet through an unmodified web3.js Connection
    const conn = new Connection(t.chain.url, 'confirmed');
    const token = getAssociatedTokenAddressSync(new PublicKey(t.chain.mint), bettor.publicKey);
    const { blockhash } = await conn.getLatestBlockhash();
    const approve = new Transaction({ feePayer: bettor.publicKey, recentBlockhash: blockhash }).add(
      createApproveInstruction(token, t.keys.relayer.publicKey, bettor.publicKey, STAKE),
    );
    approve.sign(bettor);
    const sig = await conn.sendRawTransaction(approve.serialize());
    expect((await conn.getSignatureStatus(sig)).value?.err).toBeNull();

    const placed = await chain.placeBet(delegated);
    expect(placed.bet).toMatchObject({ bettor: bettor.publicKey.toBase58(), amount: STAKE, status: 0 });
  });

  it('refuses bets outside the limits, with a zero price, and a second open bet', async () => {
    const bettor = await fundedBettor(chain);
    expect((await refusal(chain.placeBet(signed(bettor, { amount: TEST_PARAMS.minAmount - 1n })))).code).toBe(6014);
    expect((await refusal(chain.placeBet(signed(bettor, { amount: TEST_PARAMS.maxAmount + 1n })))).code).toBe(6015);
    expect((await refusal(chain.placeBet(signed(bettor, { entryPrice: 0n })))).code).toBe(6017);
    await chain.placeBet(signed(bettor));
    const second = await refusal(chain.placeBet(signed(bettor)));
    expect([second.code, second.errorName]).toEqual([6019, 'OpenBetExists']);
  });

  it('refuses a stranger as relayer (Unauthorized)', async () => {
    const stranger = Keypair.generate();
    await chain.faucet(stranger.publicKey);
    const foreign = t.adapter({ keys: { relayer: stranger } });
    const bettor = await fundedBettor(chain);
    expect((await refusal(foreign.placeBet(signed(bettor)))).code).toBe(6002);
  });

  it("refuses a replay signed by another bettor than the bet's (BettorMismatch)", async () => {
    const [owner, other] = await Promise.all([fundedBettor(chain), fundedBettor(chain)]);
    const placed = await chain.placeBet(signed(owner));
    await chain.placeBet(signed(other)); // other has a bettor account of its own
    await untilUnix(placed.bet.expireTime);
    const refused = await refusal(chain.closeAndReplace(placed.bet, PRICE, other, PRICE));
    expect(refused.errorName).toBe('BettorMismatch');
  });
});
