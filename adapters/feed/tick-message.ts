/**
 * The bytes a price signer signs for one tick (docs/decisions.md#signed-prices): a fixed 48-byte
 * message the contract reads back field by field, so a signature over it can only ever mean
 * "this signer's tick number `seq` of SOL/USDT, at `ts` ms, was `price`".
 *
 * | bytes | field |
 * |---|---|
 * | 0..16 | domain tag `UPDOWN_TICK_V1` + two zero bytes |
 * | 16..24 | feed id `solusdt` + one zero byte |
 * | 24..32 | sequence number, u64 LE (+1 per tick of this signer) |
 * | 32..40 | publish time, unix ms, i64 LE |
 * | 40..48 | price x 1e8, u64 LE |
 *
 * @example
 *   const message = encodeTickMessage({ seq: 7n, ts: 1_763_700_000_000, priceE8: 15_012_345_678n });
 */
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { parseFixed } from '../../kernel/fixed-point.ts';

/** Length of a tick message. */
export const TICK_MESSAGE_LEN = 48;
/** The domain tag: a tick signed for this project is never taken for any other signed thing. */
export const TICK_DOMAIN = Uint8Array.from([...Buffer.from('UPDOWN_TICK_V1', 'ascii'), 0, 0]);
/** The feed id field. */
export const FEED_ID = Uint8Array.from([...Buffer.from('solusdt', 'ascii'), 0]);

/** The fields a tick message carries. */
export interface TickFields {
  seq: bigint;
  /** unix ms */
  ts: number;
  /** price x 1e8 */
  priceE8: bigint;
}

/** The 48 bytes of `fields` (layout above). */
export function encodeTickMessage(fields: TickFields, domain: Uint8Array = TICK_DOMAIN, feedId: Uint8Array = FEED_ID): Buffer {
  const out = Buffer.alloc(TICK_MESSAGE_LEN);
  out.set(domain.subarray(0, 16), 0);
  out.set(feedId.subarray(0, 8), 16);
  out.writeBigUInt64LE(fields.seq, 24);
  out.writeBigInt64LE(BigInt(fields.ts), 32);
  out.writeBigUInt64LE(fields.priceE8, 40);
  return out;
}

/** The fields of a tick message, or undefined when its tag, feed id or length is not ours. */
export function decodeTickMessage(message: Uint8Array): TickFields | undefined {
  if (message.length !== TICK_MESSAGE_LEN) return undefined;
  const b = Buffer.from(message.buffer, message.byteOffset, message.byteLength);
  if (!b.subarray(0, 16).equals(TICK_DOMAIN) || !b.subarray(16, 24).equals(FEED_ID)) return undefined;
  return { seq: b.readBigUInt64LE(24), ts: Number(b.readBigInt64LE(32)), priceE8: b.readBigUInt64LE(40) };
}

/** Price x 1e8 of a decimal string with at most 8 fraction digits, exactly; undefined otherwise (or when 0). */
export function priceE8Of(price: string): bigint | undefined {
  const e8 = parseFixed(price, 8);
  return e8 !== undefined && e8 > 0n && e8 < 1n << 64n ? e8 : undefined;
}

// DER prefixes of raw 32-byte Ed25519 keys (RFC 8410): PKCS#8 private, SPKI public
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** A private key object from a 32-byte Ed25519 seed. */
export const privateKeyOfSeed = (seed: Uint8Array): KeyObject => createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });

/** A public key object from 32 raw bytes. */
export const publicKeyOfBytes = (key: Uint8Array): KeyObject => createPublicKey({ key: Buffer.concat([SPKI_PREFIX, key]), format: 'der', type: 'spki' });

/** Ed25519 signature (64 bytes) of `message`. */
export const signMessage = (key: KeyObject, message: Uint8Array): Buffer => sign(null, message, key);

/** Whether `signature` is `signer`'s Ed25519 signature of `message` (false for malformed input). */
export function verifyMessage(signer: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (signer.length !== 32 || signature.length !== 64) return false;
  try {
    return verify(null, message, publicKeyOfBytes(signer), signature);
  } catch {
    return false;
  }
}
