/**
 * Encryption at rest of custodial keys: AES-256-GCM with a random 12-byte IV per record, the
 * record's name as additional authenticated data (a record moved to another address fails), and
 * a key derived from the operator secret with scrypt and a fixed, versioned salt.
 */
import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';
import { KeyStoreSecretMismatch } from './port.ts';

const SALT = 'sol-updown/keystore/v1';
const FORMAT = 'v1';

/** A 32-byte AES key derived from `secret` (scrypt N=16384, r=8, p=1). Same secret, same key. */
export function deriveKeystoreKey(secret: string): Buffer {
  if (secret.length === 0) throw new Error('key store secret must not be empty');
  return scryptSync(secret, SALT, 32, { N: 16_384, r: 8, p: 1 });
}

/** Encrypts `plaintext` bound to `name`: `v1.<iv>.<tag>.<ciphertext>`, base64url parts. */
export function sealRecord(key: Buffer, name: string, plaintext: Uint8Array): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(`keystore:${name}`));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return [FORMAT, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
}

/** Decrypts a sealed record of `name`; throws KeyStoreSecretMismatch when the GCM tag does not verify. */
export function openRecord(key: Buffer, name: string, sealed: string): Buffer {
  const [format, iv, tag, body] = sealed.split('.');
  if (format !== FORMAT || iv === undefined || tag === undefined || body === undefined) {
    throw new KeyStoreSecretMismatch(`record ${name} (unknown format)`);
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(`keystore:${name}`));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]);
  } catch (cause) {
    throw new KeyStoreSecretMismatch(`record ${name}`, { cause });
  }
}
