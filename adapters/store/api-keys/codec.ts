/**
 * The stored form of an API key (file and Redis adapters): JSON with the HMAC secret sealed with
 * AES-256-GCM under the server key, bound to its API key as authenticated data, so a record read
 * back under another key, tampered with or copied to another name fails instead of verifying
 * anything (docs/decisions.md#api-key-secrets).
 */
import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';
import * as v from 'valibot';
import { ApiKeySealBroken, type ApiKeyRecord } from './port.ts';

const SALT = 'sol-updown/exchange-api-keys/v1';
const FORMAT = 'v1';

/** A 32-byte AES key from the operator's secret (scrypt N=16384, r=8, p=1): same secret, same key. */
export function deriveApiKeySealKey(secret: string): Buffer {
  if (secret.length === 0) throw new Error('api key store secret must not be empty');
  return scryptSync(secret, SALT, 32, { N: 16_384, r: 8, p: 1 });
}

const aad = (apiKey: string) => Buffer.from(`exchange-api-key:${apiKey}`);

/** Seals `plaintext` for `apiKey`: `v1.<iv>.<tag>.<ciphertext>`, base64url parts. */
export function sealSecret(key: Buffer, apiKey: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad(apiKey));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [FORMAT, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
}

/** Opens a sealed secret of `apiKey`; throws ApiKeySealBroken when it does not verify. */
export function openSecret(key: Buffer, apiKey: string, sealed: string): string {
  const [format, iv, tag, body] = sealed.split('.');
  if (format !== FORMAT || iv === undefined || tag === undefined || body === undefined) throw new ApiKeySealBroken(`key ${apiKey} (unknown format)`);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(aad(apiKey));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  } catch (cause) {
    throw new ApiKeySealBroken(`key ${apiKey}`, { cause });
  }
}

/** A stored record, as read back. */
const StoredApiKey = v.object({
  apiKey: v.string(),
  accountId: v.string(),
  type: v.picklist(['HMAC_SHA256', 'ED25519']),
  sealedSecret: v.optional(v.string()),
  publicKey: v.optional(v.string()),
  label: v.nullable(v.string()),
  createdAt: v.string(),
});

/** The record as stored: the secret sealed, everything else as it is. */
export function encodeApiKey(key: Buffer, record: ApiKeyRecord): string {
  const { secret, ...rest } = record;
  return JSON.stringify(secret === undefined ? rest : { ...rest, sealedSecret: sealSecret(key, record.apiKey, secret) });
}

/** A stored record read back and opened; throws ApiKeySealBroken for a record that is not one, or does not open. */
export function decodeApiKey(key: Buffer, text: string): ApiKeyRecord {
  let parsed: v.InferOutput<typeof StoredApiKey>;
  try {
    parsed = v.parse(StoredApiKey, JSON.parse(text));
  } catch (cause) {
    throw new ApiKeySealBroken('a record (unreadable)', { cause });
  }
  const { sealedSecret, ...rest } = parsed;
  const record: ApiKeyRecord = { ...rest };
  if (sealedSecret !== undefined) record.secret = openSecret(key, parsed.apiKey, sealedSecret);
  if (rest.publicKey === undefined) delete record.publicKey;
  return record;
}
