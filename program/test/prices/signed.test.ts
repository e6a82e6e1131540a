/**
 * Signed prices on the real program (docs/decisions.md#signed-prices): with them off the contract
 * works as before; the admin turns them on and trusts a signer; then a bet opens only at a
 * verified entry tick and settles only at the last tick at or before its expiry, proven by the
 * consecutive pair that straddles it. Compute units and transaction sizes are measured here.
 */
import { Keypair, Transaction } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { expectRefused } from '../refusal.ts';
import { BetChain } from '../svm.ts';
import { ed25519Ix, nowMs, placeSigned, signedChain, TickSigner, expiredSignedBet } from './support.ts';

const PRICE = 15_000_000_000n;

describe('signed prices', () => {
  it('off (no price rules account): bets open and settle at relayer-attested prices, as before', async () => {
    const chain = new BetChain();
    await chain.setUp();
    const bettor = chain.newBettor();
    const { bet } = await chain.placeBet(bettor, 0, 1_000_000_000n, PRICE);
    chain.setTime(chain.now() + 15n);
    chain.mustSend([await chain.closeBetIx(bet, bettor, PRICE + 1n)], [chain.relayer]);
    expect(chain.readBet(bet).status).toBe(1);
  });

  it('on: a bet opens at a verified entry tick and settles at the pair straddling its expiry', async () => {
    const signer = new TickSigner();
    const chain = await signedChain(signer);
    const entry = signer.tick(10n, nowMs(chain) - 400, PRICE);
    const { bettor, bet, expire } = await expiredSignedBet(chain, entry);
    const n = signer.tick(40n, expire - 300, PRICE + 5n);
    const next = signer.tick(41n, expire + 200, PRICE - 5n);
    const close = await chain.closeBetIx(bet, bettor, n.price, {}, { instruction: 0, first: 0, next: 1 });
    const sent = chain.mustSend([ed25519Ix([{ tick: n }, { tick: next }]), close], [chain.relayer]);
    expect(chain.readBet(bet)).toMatchObject({ status: 1, exit_price: n.price, entry_price: PRICE });
    expect(sent.cu).toBeGreaterThan(0);
  });

  it('entries land in any order within 8 ticks of the newest used (ENTRY_SEQ_SLACK); the newest used only rises', async () => {
    const signer = new TickSigner();
    const chain = await signedChain(signer);
    const now = nowMs(chain);
    await placeSigned(chain, chain.newBettor(), signer.tick(20n, now, PRICE));
    // signed a moment before, landed after: 12..19 are within the slack
    await placeSigned(chain, chain.newBettor(), signer.tick(12n, now - 4_000, PRICE));
    await placeSigned(chain, chain.newBettor(), signer.tick(19n, now - 500, PRICE));
    const bettor = chain.newBettor();
    const late = await chain.placeBetIx(bettor, { side: 0, amount: 1_000_000_000n, entryPrice: PRICE }, { tick: { instruction: 0, signature: 0 } });
    expectRefused(chain.send([ed25519Ix([{ tick: signer.tick(11n, now - 4_500, PRICE) }]), late], [chain.relayer, bettor.key]), 'PriceTickReplayed');
  });

  it('a Profile B replay: close + place in one transaction, one Ed25519 instruction for the exit pair and the entry tick', async () => {
    const signer = new TickSigner();
    const chain = await signedChain(signer);
    const { bettor, bet, expire } = await expiredSignedBet(chain, signer.tick(1n, nowMs(chain), PRICE));
    const [n, next] = [signer.tick(2n, expire - 100, PRICE), signer.tick(3n, expire + 300, PRICE + 9n)];
    const close = await chain.closeBetIx(bet, bettor, PRICE, {}, { instruction: 0, first: 0, next: 1 });
    const place = await chain.placeBetIx(bettor, { side: 0, amount: 1_000_000_000n, entryPrice: next.price }, { tick: { instruction: 0, signature: 2 } });
    const ixs = [ed25519Ix([{ tick: n }, { tick: next }, { tick: next }]), close, place];
    const sent = chain.mustSend(ixs, [chain.relayer, bettor.key]);
    expect(chain.readBet(bet).status).toBe(3);
    expect(chain.readBet(chain.betAddress(bettor, 1n)).entry_price).toBe(next.price);
    console.log(`signed replay measured: ${JSON.stringify({ bytes: wireSize(ixs, chain, 2), cu: sent.cu })}`);
    expect(wireSize(ixs, chain, 2)).toBeLessThanOrEqual(1232);
  });

  it('measures: bytes and compute units of a signed placement and of a signed close batch', async () => {
    const signer = new TickSigner();
    const chain = await signedChain(signer);
    const entry = signer.tick(1n, nowMs(chain), PRICE);
    const bettors = Array.from({ length: 12 }, () => chain.newBettor());
    const place = await chain.placeBetIx(bettors[0]!, { side: 0, amount: 1_000_000_000n, entryPrice: PRICE }, { tick: { instruction: 0, signature: 0 } });
    const placeTx = [ed25519Ix([{ tick: entry }]), place];
    const placed = chain.mustSend(placeTx, [chain.relayer, bettors[0]!.key]);
    const bets = [chain.betAddress(bettors[0]!, 0n)];
    for (const b of bettors.slice(1)) bets.push(await placeSigned(chain, b, entry));
    const expire = Number(chain.readBet(bets[0]!).expire_time) * 1000;
    chain.setTime(chain.now() + 16n);
    const pair = [signer.tick(2n, expire - 100, PRICE + 1n), signer.tick(3n, expire + 400, PRICE + 2n)];
    const fits: Array<{ bets: number; bytes: number; cu: number }> = [];
    for (let k = 1; k <= bets.length; k++) {
      const closes = await Promise.all(
        bets.slice(0, k).map((bet, i) => chain.closeBetIx(bet, bettors[i]!, pair[0]!.price, {}, { instruction: 0, first: 0, next: 1 })),
      );
      const bytes = wireSize([ed25519Ix(pair.map((tick) => ({ tick }))), ...closes], chain);
      if (bytes > 1232) break;
      fits.push({ bets: k, bytes, cu: 0 });
    }
    const most = fits.at(-1)!;
    const closes = await Promise.all(
      bets.slice(0, most.bets).map((bet, i) => chain.closeBetIx(bet, bettors[i]!, pair[0]!.price, {}, { instruction: 0, first: 0, next: 1 })),
    );
    const closed = chain.mustSend([ed25519Ix(pair.map((tick) => ({ tick }))), ...closes], [chain.relayer]);
    most.cu = closed.cu;
    const report = {
      placeBytes: wireSize(placeTx, chain, 2),
      placeCu: placed.cu,
      closeBatch: most,
      closeCuPerBet: Math.round(closed.cu / most.bets),
      closeBytesPerBet: Math.round(most.bytes / most.bets),
    };
    console.log(`signed prices measured: ${JSON.stringify(report)}`);
    expect(most.bets).toBeGreaterThanOrEqual(4);
    expect(report.placeBytes).toBeLessThanOrEqual(1232);
  });
});

describe('bet intents beside signed prices (docs/decisions.md#bet-intents)', () => {
  it('measures: bytes and compute units of a delegated placement with its intent, beside place_bet, with relayer and with signed prices', async () => {
    const args = { side: 0, amount: 1_000_000_000n, entryPrice: PRICE };
    const rows: Record<string, { bytes: number; cu: number[] }> = {};
    const record = (label: string, bytes: number, cu: number): void => {
      rows[label] ??= { bytes, cu: [] };
      rows[label].cu.push(cu);
    };
    // the same bettor keys on fresh chains: a first bet's address searches cost the same in every row
    for (const key of Array.from({ length: 3 }, () => Keypair.generate())) {
      const relayerPrices = async (delegated: boolean): Promise<void> => {
        const chain = new BetChain();
        await chain.setUp();
        const bettor = chain.newBettor(undefined, key);
        chain.approveRelayer(bettor, args.amount);
        const ixs = delegated ? await chain.delegatedIxs(bettor, args) : [await chain.placeBetIx(bettor, args)];
        const signers = delegated ? [chain.relayer] : [chain.relayer, bettor.key];
        const label = delegated ? 'place_bet_delegated + intent, relayer prices' : 'place_bet, relayer prices';
        record(label, wireSize(ixs, chain, signers.length), chain.mustSend(ixs, signers).cu);
      };
      const signedPrices = async (delegated: boolean): Promise<void> => {
        const signer = new TickSigner();
        const chain = await signedChain(signer);
        const bettor = chain.newBettor(undefined, key);
        chain.approveRelayer(bettor, args.amount);
        const tick = ed25519Ix([{ tick: signer.tick(1n, nowMs(chain), PRICE) }]);
        const at = { tick: { instruction: 0, signature: 0 } };
        const ixs = delegated ? [tick, ...(await chain.delegatedIxs(bettor, args, { ...at, intentAt: 1 }))] : [tick, await chain.placeBetIx(bettor, args, at)];
        const signers = delegated ? [chain.relayer] : [chain.relayer, bettor.key];
        const label = delegated ? 'place_bet_delegated + intent, signed prices' : 'place_bet, signed prices';
        record(label, wireSize(ixs, chain, signers.length), chain.mustSend(ixs, signers).cu);
      };
      await relayerPrices(false);
      await relayerPrices(true);
      await signedPrices(false);
      await signedPrices(true);
    }
    const intentCost = rows['place_bet_delegated + intent, relayer prices']!.cu.map((cu, i) => cu - rows['place_bet, relayer prices']!.cu[i]!);
    console.table(Object.entries(rows).map(([transaction, r]) => ({ transaction, bytes: r.bytes, cu: r.cu.join(' / ') })));
    console.log(`bet intents measured: ${JSON.stringify({ intentCuOverPlaceBet: intentCost })}`);
    for (const r of Object.values(rows)) expect(r.bytes).toBeLessThanOrEqual(1232);
    for (const cu of intentCost) expect(cu).toBeLessThan(5_000);
  });
});

/** Serialized size of a transaction of `instructions` signed by the relayer (and `signers - 1` more). */
function wireSize(instructions: ReturnType<typeof ed25519Ix>[], chain: BetChain, signers = 1): number {
  const tx = new Transaction();
  tx.add(...instructions);
  tx.feePayer = chain.relayer.publicKey;
  tx.recentBlockhash = chain.svm.latestBlockhash();
  const message = tx.compileMessage().serialize();
  return 1 + 64 * signers + message.length;
}
