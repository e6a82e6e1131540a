/**
 * Checking a tick's signature (docs/decisions.md#signed-prices): the signature must be the named
 * signer's over the tick message of exactly this tick's sequence number, time and price.
 *
 * @example
 *   if (verifyTick(tick) === 'forged') drop(tick);
 */
import { PublicKey } from '@solana/web3.js';
import type { PriceTick, Tick } from './port.ts';
import { encodeTickMessage, priceE8Of, verifyMessage } from './tick-message.ts';

/** What a tick's signature says: none, a valid one, or one that does not verify. */
export type TickCheck = 'unsigned' | 'verified' | 'forged';

/** The 32 bytes of a base58 key, or undefined. */
function keyBytes(base58: string): Uint8Array | undefined {
  try {
    return new PublicKey(base58).toBytes();
  } catch {
    return undefined;
  }
}

/** Checks `tick`'s signature against its own fields. */
export function verifyTick(tick: PriceTick | Tick): TickCheck {
  const signed = tick.signed;
  if (!signed) return 'unsigned';
  const signer = keyBytes(signed.signer);
  const priceE8 = priceE8Of(tick.price);
  if (!signer || priceE8 === undefined || !Number.isSafeInteger(signed.seq) || signed.seq < 0) return 'forged';
  const message = encodeTickMessage({ seq: BigInt(signed.seq), ts: tick.ts, priceE8 });
  return verifyMessage(signer, message, Buffer.from(signed.signature, 'base64')) ? 'verified' : 'forged';
}
