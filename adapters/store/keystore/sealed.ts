/**
 * The KeyStore logic shared by both backends: records are sealed secret keys by address, plus
 * one check record sealed at creation so that a wrong secret is detected when the store opens.
 */
import { Keypair } from '@solana/web3.js';
import { openRecord, sealRecord } from './crypto.ts';
import { KeyStoreSecretMismatch, type KeyStore } from './port.ts';

/** Name of the record that proves the secret (never a base58 address). */
export const CHECK_RECORD = '__check__';
const CHECK_PLAINTEXT = Buffer.from('sol-updown keystore check v1');

/** Raw storage of sealed records by name (a Redis hash, a JSON file). */
export interface SealedRecords {
  get(name: string): Promise<string | undefined>;
  /** Stores `value` under `name` unless present; true when stored. */
  putIfAbsent(name: string, value: string): Promise<boolean>;
  names(): Promise<string[]>;
}

/**
 * Opens a KeyStore over `records` with `key` (from `deriveKeystoreKey`). Throws
 * KeyStoreSecretMismatch when the store was created with another secret.
 */
export async function openSealedKeyStore(records: SealedRecords, key: Buffer): Promise<KeyStore> {
  const check = await records.get(CHECK_RECORD);
  if (check === undefined) {
    await records.putIfAbsent(CHECK_RECORD, sealRecord(key, CHECK_RECORD, CHECK_PLAINTEXT));
  }
  const stored = check ?? (await records.get(CHECK_RECORD));
  if (stored === undefined || !openRecord(key, CHECK_RECORD, stored).equals(CHECK_PLAINTEXT)) {
    throw new KeyStoreSecretMismatch('check record');
  }

  const put = async (pair: Keypair): Promise<Keypair> => {
    const address = pair.publicKey.toBase58();
    if (await records.putIfAbsent(address, sealRecord(key, address, pair.secretKey))) return pair;
    const existing = await load(address);
    if (!existing || !Buffer.from(existing.secretKey).equals(Buffer.from(pair.secretKey))) {
      throw new Error(`key store: ${address} already holds a different key`);
    }
    return existing;
  };

  const load = async (address: string): Promise<Keypair | undefined> => {
    if (address === CHECK_RECORD) return undefined;
    const sealed = await records.get(address);
    if (sealed === undefined) return undefined;
    // the record is authenticated (AES-GCM, bound to its address): no need to re-derive its public half from the seed
    const pair = Keypair.fromSecretKey(openRecord(key, address, sealed), { skipValidation: true });
    if (pair.publicKey.toBase58() !== address) throw new KeyStoreSecretMismatch(`record ${address} (holds another key)`);
    return pair;
  };

  return {
    create: () => put(Keypair.generate()),
    import: (secretKey) => put(Keypair.fromSecretKey(secretKey)),
    get: load,
    has: async (address) => address !== CHECK_RECORD && (await records.get(address)) !== undefined,
    list: async () => (await records.names()).filter((n) => n !== CHECK_RECORD),
  };
}
