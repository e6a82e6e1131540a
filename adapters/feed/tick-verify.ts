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

/** A tick's signed fields, its price as x 1e8. */
export interface SignedTickFields {
  seq: number;
  /** unix ms */
  ts: number;
  priceE8: bigint;
  /** base64 */
  signature: string;
  /** base58 */
  signer: string;
}

/** Whether `f.signature` is `f.signer`'s signature over the tick message of exactly these fields. */
export function signatureHolds(f: SignedTickFields): boolean {
  const signer = keyBytes(f.signer);
  if (!signer || !Number.isSafeInteger(f.seq) || f.seq < 0) return false;
  return verifyMessage(signer, encodeTickMessage({ seq: BigInt(f.seq), ts: f.ts, priceE8: f.priceE8 }), Buffer.from(f.signature, 'base64'));
}

/** Checks `tick`'s signature against its own fields. */
export function verifyTick(tick: PriceTick | Tick): TickCheck {
  const signed = tick.signed;
  if (!signed) return 'unsigned';
  const priceE8 = priceE8Of(tick.price);
  if (priceE8 === undefined) return 'forged';
  return signatureHolds({ ...signed, ts: tick.ts, priceE8 }) ? 'verified' : 'forged';
}
