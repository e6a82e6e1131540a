/**
 * Wire schemas of the native API's key routes (docs/exchange-api.md#api-keys), declared once for
 * the server, the OpenAPI document and the tests.
 */
import * as v from 'valibot';

/** POST /api/v1/accounts/{id}/api-keys: an HMAC key (the default), or an Ed25519 key with its public key. */
export const CreateApiKeyBody = v.strictObject({
  type: v.optional(v.picklist(['HMAC_SHA256', 'ED25519'], 'must be HMAC_SHA256 or ED25519'), 'HMAC_SHA256'),
  publicKey: v.optional(v.pipe(v.string('must be a string'), v.maxLength(2000, 'is too long'))),
  label: v.optional(v.pipe(v.string('must be a string'), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(100, 'is longer than 100 characters'))),
});

/** A key as listed: never its secret. */
export const ApiKeyView = v.strictObject({
  apiKey: v.pipe(v.string(), v.regex(/^[A-Za-z0-9]{64}$/)),
  type: v.picklist(['HMAC_SHA256', 'ED25519']),
  label: v.nullable(v.string()),
  createdAt: v.string(),
  publicKey: v.optional(v.string()),
});

/** The answer that created a key: an HMAC key's secret appears here once, and nowhere else. */
export const CreatedApiKeyView = v.strictObject({ ...ApiKeyView.entries, secretKey: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9]{64}$/))) });
