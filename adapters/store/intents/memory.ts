/** Pending intents in memory (tests, and the file adapter's state). */
import { mayRecord, type IntentStore, type PendingIntent } from './port.ts';

export interface MemoryIntentStore extends IntentStore {
  /** applies a change without any I/O (the file adapter's replay) */
  apply(change: { put: PendingIntent } | { remove: { key: string; signature: string } }): void;
  size(): number;
  /** the key's record now, as held (no copy) */
  held(key: string): PendingIntent | undefined;
}

export function createMemoryIntentStore(): MemoryIntentStore {
  const intents = new Map<string, PendingIntent>();
  const apply: MemoryIntentStore['apply'] = (change) => {
    if ('put' in change) intents.set(change.put.key, { ...change.put });
    else if (intents.get(change.remove.key)?.signature === change.remove.signature) intents.delete(change.remove.key);
  };
  return {
    apply,
    size: () => intents.size,
    put: async (intent, heightNow) => {
      if (!mayRecord(intents.get(intent.key), intent, heightNow)) return false;
      apply({ put: intent });
      return true;
    },
    held: (key: string) => intents.get(key),
    remove: async (key, signature) => apply({ remove: { key, signature } }),
    list: async () => [...intents.values()].map((i) => ({ ...i })),
  };
}
