/**
 * Port: the API keys of the Binance-shaped surface (docs/exchange-api.md#api-keys). A key belongs
 * to one native account and holds only what verifying a signature needs: an HMAC-SHA256 key its
 * secret (kept sealed at rest by the file and Redis adapters, docs/decisions.md#api-key-secrets),
 * an Ed25519 key the client's public key. Adapters: `memory.ts`, `file.ts`, `redis.ts`; the shared
 * behaviour is `contract.ts`.
 */

/** How requests made with a key are signed (docs/exchange-api.md#api-keys). */
export type ApiKeyType = 'HMAC_SHA256' | 'ED25519';

/** One API key as the exchange keeps it. */
export interface ApiKeyRecord {
  /** the key the client sends in `X-MBX-APIKEY`: 64 letters and digits */
  apiKey: string;
  accountId: string;
  type: ApiKeyType;
  /** HMAC_SHA256: the shared secret (plain in memory; sealed by the adapters that persist) */
  secret?: string;
  /** ED25519: the client's public key, PEM (SPKI) */
  publicKey?: string;
  /** a name the owner gave it, or null */
  label: string | null;
  /** ISO 8601 UTC */
  createdAt: string;
}

/** The API key store. */
export interface ApiKeyStore {
  /** Stores a new key (its `apiKey` is fresh: callers generate 384 random bits). */
  put(record: ApiKeyRecord): Promise<void>;
  /** The key, or undefined when none has this name. */
  get(apiKey: string): Promise<ApiKeyRecord | undefined>;
  /** The keys of one account, oldest first. */
  listByAccount(accountId: string): Promise<ApiKeyRecord[]>;
  /** Deletes one key of `accountId`; false when the account has no such key. */
  delete(accountId: string, apiKey: string): Promise<boolean>;
  /** Deletes every key of `accountId` (the account is gone); how many went. */
  deleteAccount(accountId: string): Promise<number>;
  close(): Promise<void>;
}

/** The stored keys cannot be opened with this server key (another `EXCHANGE_API_KEY_SECRET`, or tampered data). */
export class ApiKeySealBroken extends Error {
  constructor(what: string, options?: { cause?: unknown }) {
    super(`api key store: ${what} cannot be opened with this server key (another EXCHANGE_API_KEY_SECRET, or tampered data)`, options);
    this.name = 'ApiKeySealBroken';
  }
}
