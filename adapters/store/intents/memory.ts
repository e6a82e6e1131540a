/** Pending intents in memory (tests, and the file adapter's state). */
import type { IntentStore, PendingIntent } from './port.ts';

export interface MemoryIntentStore extends IntentStore {
  /** applies a change without any I/O (the file adapter's replay) */
  apply(change: { put: PendingIntent } | { remove: { key: string; signature: string } }): void;
  size(): number;
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
    put: async (intent) => apply({ put: intent }),
    remove: async (key, signature) => apply({ remove: { key, signature } }),
    list: async () => [...intents.values()].map((i) => ({ ...i })),
  };
}
