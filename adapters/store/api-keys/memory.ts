/** In-memory API key store (unit tests; an embedded exchange persists with `file.ts`). */
import type { ApiKeyRecord, ApiKeyStore } from './port.ts';

/** Creates an empty in-memory store. */
export function createMemoryApiKeyStore(): ApiKeyStore {
  const keys = new Map<string, ApiKeyRecord>();
  return {
    put: async (record) => void keys.set(record.apiKey, { ...record }),
    get: async (apiKey) => {
      const r = keys.get(apiKey);
      return r && { ...r };
    },
    listByAccount: async (accountId) => [...keys.values()].filter((r) => r.accountId === accountId).map((r) => ({ ...r })),
    delete: async (accountId, apiKey) => keys.get(apiKey)?.accountId === accountId && keys.delete(apiKey),
    deleteAccount: async (accountId) => {
      let n = 0;
      for (const [k, r] of keys) if (r.accountId === accountId && keys.delete(k)) n++;
      return n;
    },
    close: async () => undefined,
  };
}
