/**
 * Port: the custodial key store (docs/gateway-api.md#wallet: the gateway holds the keys and signs
 * bets; new wallets are registered in the gateway's own key store). Keys are
 * encrypted at rest (AES-256-GCM, `crypto.ts`); a wrong secret fails loudly when the
 * store opens, never returns garbage.
 * Adapters: `file.ts` (file under DATA_DIR, embedded default), `redis.ts` (hash).
 */
import type { Keypair } from '@solana/web3.js';

export interface KeyStore {
  /** Generates a new keypair, stores it, returns it. */
  create(): Promise<Keypair>;
  /** Stores an existing 64-byte secret key (idempotent for the same key); returns its keypair. */
  import(secretKey: Uint8Array): Promise<Keypair>;
  /** The keypair of `address` (base58), or undefined when the store does not hold it. */
  get(address: string): Promise<Keypair | undefined>;
  /** Whether the store holds `address`. */
  has(address: string): Promise<boolean>;
  /** Every address held, in no particular order. */
  list(): Promise<string[]>;
}

/** The store's secret does not open its records (wrong `GW_KEYSTORE_SECRET`, or tampered data). */
export class KeyStoreSecretMismatch extends Error {
  constructor(what: string, options?: { cause?: unknown }) {
    super(`key store: ${what} cannot be decrypted with this secret (wrong GW_KEYSTORE_SECRET or tampered data)`, options);
    this.name = 'KeyStoreSecretMismatch';
  }
}
