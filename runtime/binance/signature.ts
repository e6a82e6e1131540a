/**
 * Checking a request's signature as Binance does (docs/exchange-api.md#binance-signing): the
 * payload is the query string followed directly by the body, without the `signature` parameter;
 * an HMAC-SHA256 key signs it as hex (any case), an Ed25519 key as base64.
 */
import { createHmac, createPublicKey, timingSafeEqual, verify, type KeyObject } from 'node:crypto';
import type { ApiKeyRecord } from '../../adapters/store/api-keys/port.ts';
import { ResetMap } from '../../kernel/reset-map.ts';

/** `raw` (a query string or form body) without its `signature=` parameters. */
export const withoutSignature = (raw: string): string =>
  raw
    .split('&')
    .filter((part) => !part.startsWith('signature='))
    .join('&');

/** The signed payload of a request: the query then the body, each without its signature. */
export const signedPayload = (query: string, body: string): string => withoutSignature(query) + withoutSignature(body);

const publicKeys = new ResetMap<string, KeyObject>(10_000);
const publicKeyOf = (pem: string): KeyObject => publicKeys.getOrSet(pem, createPublicKey);

/** Whether `signature` (already percent-decoded) signs `payload` with `key`. */
export function signatureValid(key: ApiKeyRecord, payload: string, signature: string): boolean {
  if (key.type === 'HMAC_SHA256') {
    if (!/^[0-9a-fA-F]{64}$/.test(signature) || key.secret === undefined) return false;
    const expected = createHmac('sha256', key.secret).update(payload).digest();
    return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
  }
  if (key.publicKey === undefined || !/^[A-Za-z0-9+/]+={0,2}$/.test(signature)) return false;
  const bytes = Buffer.from(signature, 'base64');
  if (bytes.length !== 64) return false;
  return verify(null, Buffer.from(payload), publicKeyOf(key.publicKey), bytes);
}
