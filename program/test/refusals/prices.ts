/**
 * Refusals of signed prices (docs/decisions.md#signed-prices): one per check, reached with the
 * fewest moves (the attacks behind each are in attacks/prices.test.ts), plus the admin's limits.
 */
import { Keypair } from '@solana/web3.js';
import { it } from 'vitest';
import { ed25519Ix, nowMs, placeSigned, signedChain, TickSigner, expiredSignedBet } from '../prices/support.ts';
import { PRICE, STAKE, type Refused } from './support.ts';

/** Registers the tests (inside the refusals describe). */
export function priceRefusals(refused: Refused): void {
  it('signed entry ticks: missing, look-alike sysvar, bad tick, untrusted, mismatched, too old, replayed', async () => {
    const signer = new TickSigner();
    const chain = await signedChain(signer);
    const bettor = chain.newBettor();
    const place = (price: bigint, accounts = {}) =>
      chain.placeBetIx(bettor, { side: 0, amount: STAKE, entryPrice: price }, { tick: { instruction: 0, signature: 0 }, accounts });
    const now = nowMs(chain);
    refused(chain.send([await place(PRICE)], [chain.relayer, bettor.key]), 'PriceTickMissing');
    const tick = signer.tick(5n, now, PRICE);
    refused(
      chain.send([ed25519Ix([{ tick }]), await place(PRICE, { instructions: Keypair.generate().publicKey })], [chain.relayer, bettor.key]),
      'InvalidInstructionsSysvar',
    );
    const feedId = Uint8Array.from([...Buffer.from('ethusdt', 'ascii'), 0]);
    refused(chain.send([ed25519Ix([{ tick: signer.tick(5n, now, PRICE, { feedId }) }]), await place(PRICE)], [chain.relayer, bettor.key]), 'InvalidPriceTick');
    refused(
      chain.send([ed25519Ix([{ tick: new TickSigner().tick(5n, now, PRICE) }]), await place(PRICE)], [chain.relayer, bettor.key]),
      'UntrustedPriceSigner',
    );
    refused(chain.send([ed25519Ix([{ tick }]), await place(PRICE + 1n)], [chain.relayer, bettor.key]), 'PriceTickMismatch');
    refused(chain.send([ed25519Ix([{ tick: signer.tick(5n, now - 30_001, PRICE) }]), await place(PRICE)], [chain.relayer, bettor.key]), 'PriceTickTooOld');
    // tick 5 is 9 behind 14: one more than the 8 ticks an entry may lag (ENTRY_SEQ_SLACK)
    await placeSigned(chain, chain.newBettor(), signer.tick(14n, now, PRICE));
    refused(chain.send([ed25519Ix([{ tick }]), await place(PRICE)], [chain.relayer, bettor.key]), 'PriceTickReplayed');
  });

  it('signed exit ticks: not straddling the expiry, not consecutive, stale', async () => {
    const signer = new TickSigner();
    const chain = await signedChain(signer);
    const { bettor, bet, expire } = await expiredSignedBet(chain, signer.tick(1n, nowMs(chain), PRICE));
    const close = (a: ReturnType<TickSigner['tick']>, b: ReturnType<TickSigner['tick']>) =>
      chain
        .closeBetIx(bet, bettor, a.price, {}, { instruction: 0, first: 0, next: 1 })
        .then((ix) => chain.send([ed25519Ix([{ tick: a }, { tick: b }]), ix], [chain.relayer]));
    refused(await close(signer.tick(2n, expire + 1, PRICE), signer.tick(3n, expire + 2, PRICE)), 'NotLastTickBeforeExpiry');
    refused(await close(signer.tick(2n, expire, PRICE), signer.tick(4n, expire + 2, PRICE)), 'PriceTicksNotConsecutive');
    refused(await close(signer.tick(2n, expire - 30_001, PRICE), signer.tick(3n, expire + 2, PRICE)), 'PriceTickStale');
  });

  it('TooManyPriceSigners: a fifth trusted signer; RolesNotDistinct: the relayer as price signer', async () => {
    const chain = await signedChain(new TickSigner());
    for (let i = 0; i < 3; i++) chain.mustSend([await chain.addPriceSignerIx(Keypair.generate().publicKey, chain.now() + 60n)], [chain.admin]);
    refused(chain.send([await chain.addPriceSignerIx(Keypair.generate().publicKey, chain.now() + 60n)], [chain.admin]), 'TooManyPriceSigners');
    refused(chain.send([await chain.addPriceSignerIx(chain.relayer.publicKey, chain.now() + 60n)], [chain.admin]), 'RolesNotDistinct');
  });
}
