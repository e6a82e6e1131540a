/**
 * API keys of native accounts (docs/exchange-api.md#api-keys): created, listed and deleted
 * through the native API. An HMAC-SHA256 key's secret is generated here and shown once; an
 * Ed25519 key is the client's own public key (PEM), as Binance registers them.
 */
import { createPublicKey, randomBytes } from 'node:crypto';
import type { ApiKeyRecord, ApiKeyStore, ApiKeyType } from '../../adapters/store/api-keys/port.ts';
import { ok, refuse } from '../../kernel/refusal.ts';
import type { ExchangeContext } from '../exchange/context.ts';
import type { Outcome } from '../exchange/outcome.ts';

/** Most keys one account may hold (Binance allows 30). */
export const MAX_KEYS_PER_ACCOUNT = 30;

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** 64 random letters and digits, the shape of Binance's keys and secrets (about 381 bits). */
export function randomKeyText(): string {
  let out = '';
  while (out.length < 64) {
    for (const byte of randomBytes(96)) {
      // 248 = 4 x 62: bytes above it would bias the alphabet
      if (byte < 248 && out.length < 64) out += ALPHANUMERIC[byte % 62];
    }
  }
  return out;
}

/** What creating a key asks. */
export type NewApiKey = { type: 'HMAC_SHA256'; label?: string } | { type: 'ED25519'; publicKey: string; label?: string };

/** A key as the native API shows it; `secretKey` only in the answer that created an HMAC key. */
export interface ApiKeyView {
  apiKey: string;
  type: ApiKeyType;
  label: string | null;
  createdAt: string;
  publicKey?: string;
  secretKey?: string;
}

const view = (r: ApiKeyRecord): ApiKeyView => ({
  apiKey: r.apiKey,
  type: r.type,
  label: r.label,
  createdAt: r.createdAt,
  ...(r.publicKey === undefined ? {} : { publicKey: r.publicKey }),
});

/** An Ed25519 public key in PEM, normalised; undefined when `pem` is not one. */
export function ed25519PublicKey(pem: string): string | undefined {
  try {
    const key = createPublicKey({ key: pem, format: 'pem' });
    if (key.asymmetricKeyType !== 'ed25519') return undefined;
    return key.export({ type: 'spki', format: 'pem' }).toString();
  } catch {
    return undefined;
  }
}

/** POST /api/v1/accounts/{id}/api-keys: a new key of an existing account. */
export async function createApiKey(ctx: ExchangeContext, keys: ApiKeyStore, accountId: string, request: NewApiKey): Promise<Outcome<ApiKeyView>> {
  if (!(await ctx.store.load(accountId))) return refuse('ACCOUNT_NOT_FOUND', `account ${accountId} does not exist`);
  if ((await keys.listByAccount(accountId)).length >= MAX_KEYS_PER_ACCOUNT) {
    return refuse('VALIDATION_ERROR', `an account holds at most ${MAX_KEYS_PER_ACCOUNT} API keys; delete one first`);
  }
  const base = { apiKey: randomKeyText(), accountId, label: request.label ?? null, createdAt: ctx.now().toISOString() };
  if (request.type === 'ED25519') {
    const publicKey = ed25519PublicKey(request.publicKey);
    if (!publicKey) return refuse('VALIDATION_ERROR', 'publicKey must be an Ed25519 public key in PEM (-----BEGIN PUBLIC KEY-----)');
    const record: ApiKeyRecord = { ...base, type: 'ED25519', publicKey };
    await keys.put(record);
    ctx.log.info({ accountId, apiKey: record.apiKey, type: record.type }, 'api key registered');
    return ok(view(record));
  }
  const record: ApiKeyRecord = { ...base, type: 'HMAC_SHA256', secret: randomKeyText() };
  await keys.put(record);
  ctx.log.info({ accountId, apiKey: record.apiKey, type: record.type }, 'api key created');
  return ok({ ...view(record), secretKey: record.secret ?? '' });
}

/** GET /api/v1/accounts/{id}/api-keys: the account's keys, oldest first, never a secret. */
export async function listApiKeys(ctx: ExchangeContext, keys: ApiKeyStore, accountId: string): Promise<Outcome<ApiKeyView[]>> {
  if (!(await ctx.store.load(accountId))) return refuse('ACCOUNT_NOT_FOUND', `account ${accountId} does not exist`);
  return ok((await keys.listByAccount(accountId)).map(view));
}

/** DELETE /api/v1/accounts/{id}/api-keys/{apiKey}: requests signed with it are refused from now on. */
export async function deleteApiKey(ctx: ExchangeContext, keys: ApiKeyStore, accountId: string, apiKey: string): Promise<Outcome<null>> {
  if (!(await ctx.store.load(accountId))) return refuse('ACCOUNT_NOT_FOUND', `account ${accountId} does not exist`);
  if (!(await keys.delete(accountId, apiKey))) return refuse('API_KEY_NOT_FOUND', `account ${accountId} has no API key ${apiKey}`);
  ctx.log.info({ accountId, apiKey }, 'api key deleted');
  return ok(null);
}
