/**
 * File API key store (the embedded exchange without Redis): `<DATA_DIR>/exchange/api-keys.json`
 * holding `{"version":1,"keys":["<stored record>", ...]}` (oldest first, HMAC secrets sealed:
 * `codec.ts`), rewritten atomically on every change, mode 0600. One process per data dir (the
 * exchange holds its lock), so writes are serialised in-process.
 */
import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { writeFileAtomically } from '../file/atomic-file.ts';
import { decodeApiKey, encodeApiKey } from './codec.ts';
import type { ApiKeyRecord, ApiKeyStore } from './port.ts';

interface FileShape {
  version: 1;
  keys: string[];
}

async function readKeys(file: string, key: Buffer): Promise<ApiKeyRecord[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const parsed = JSON.parse(text) as Partial<FileShape>;
  if (parsed.version !== 1 || !Array.isArray(parsed.keys)) throw new Error(`api key file ${file} has an unknown format`);
  return parsed.keys.map((k) => decodeApiKey(key, String(k)));
}

/** Opens (or creates on first write) the key file at `file`, sealing secrets with `key` (`deriveApiKeySealKey`). */
export async function openFileApiKeyStore(file: string, key: Buffer): Promise<ApiKeyStore> {
  mkdirSync(dirname(file), { recursive: true });
  const records = await readKeys(file, key);
  // the stored text of each record, made once: a rewrite does not seal every secret again
  const stored = new Map(records.map((r) => [r.apiKey, encodeApiKey(key, r)]));
  const byKey = new Map(records.map((r) => [r.apiKey, r]));
  let writing: Promise<void> = Promise.resolve();
  const save = (): Promise<void> => {
    const content = JSON.stringify({ version: 1, keys: [...stored.values()] } satisfies FileShape, null, 1);
    const done = writing.then(() => writeFileAtomically(file, content));
    writing = done.catch(() => undefined);
    return done;
  };
  const copy = (r: ApiKeyRecord | undefined) => r && { ...r };
  return {
    async put(record) {
      byKey.set(record.apiKey, { ...record });
      stored.set(record.apiKey, encodeApiKey(key, record));
      await save();
    },
    get: async (apiKey) => copy(byKey.get(apiKey)),
    listByAccount: async (accountId) => [...byKey.values()].filter((r) => r.accountId === accountId).map((r) => ({ ...r })),
    async delete(accountId, apiKey) {
      if (byKey.get(apiKey)?.accountId !== accountId) return false;
      byKey.delete(apiKey);
      stored.delete(apiKey);
      await save();
      return true;
    },
    async deleteAccount(accountId) {
      const gone = [...byKey.values()].filter((r) => r.accountId === accountId);
      for (const r of gone) {
        byKey.delete(r.apiKey);
        stored.delete(r.apiKey);
      }
      if (gone.length > 0) await save();
      return gone.length;
    },
    close: () => writing,
  };
}
