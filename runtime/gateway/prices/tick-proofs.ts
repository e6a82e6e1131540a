/**
 * The signed ticks a transaction needs when the contract requires signed prices
 * (docs/decisions.md#signed-prices), from the gateway's price history: the newest signed tick for an
 * entry, and for an exit the pair n, n+1 of one signer that straddles the expiry.
 *
 * @example
 *   const proofs = tickProofs(history, () => prices.currentTick());
 *   const pair = await proofs.exitPair(1_763_700_015n);
 */
import type { Tick } from '../../../adapters/feed/port.ts';
import type { PriceHistory } from '../../../adapters/store/price-history/port.ts';
import { exitPairOrWhyNot, isSigned, type SignedTick } from '../../../adapters/chain/codec/ed25519.ts';
import type { TickProofs } from '../../../adapters/chain/port.ts';

/** How far past expiry the tick after it is looked for (the 30 s rule bounds the tick before). */
export const NEXT_TICK_WINDOW_MS = 300_000;

/** Proofs from `history` and the newest tick the ingestion holds. */
export function tickProofs(history: PriceHistory, newest: () => Tick | undefined): TickProofs {
  return {
    latest(): SignedTick | undefined {
      const tick = newest();
      return isSigned(tick) ? tick : undefined;
    },
    async exitPair(expireTime: bigint) {
      const expireMs = Number(expireTime) * 1000;
      const [n, after] = await Promise.all([history.atOrBefore(expireMs), history.between(expireMs + 1, expireMs + NEXT_TICK_WINDOW_MS)]);
      return exitPairOrWhyNot(n, after[0], expireMs);
    },
  };
}
